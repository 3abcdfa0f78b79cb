import Testing

@testable import Events

/// The real seed-data record shapes (`eventlogs/seed-data`), built by hand, fit the payloads.
@Suite struct DomainSeedRecordTests {
  /// Record `_id` 1 of `taipei-zoo-animals.json`, every field as the source has it.
  static let giantPanda = AnimalRecord(
    sourceID: 1, nameChinese: "大貓熊", nameEnglish: "Giant Panda",
    nameLatin: "Ailuropoda melanoleuca", alsoKnownAs: "貓熊、熊貓", location: "大貓熊館",
    geo: "MULTIPOINT ((121.5831587 24.9971109))", phylum: "脊索動物門", taxonomicClass: "哺乳綱",
    order: "食肉目", family: "熊科", conservation: "易危(VU)",
    distribution: "目前僅存於中國四川、甘肅和陜西三省境內。",
    habitat: "海拔2600-3,000公尺的高山中，會因季節的變化而改變其居住的海拔高度，一般在乾淨的活水源和竹林發育良好的地區活動。",
    feature: "1. 成熊身長約為120-180公分，體重約80-120公斤，幼熊出生時體長約10公分，體重約僅有150~200公克。\r\n"
      + " 2. 具有強壯有力的四肢：後腳內八字撇，有利於在密林中走動時撥開竹子。\r\n"
      + " 3. 腕骨特化成的偽拇指(不具備關節)，使得牠們能俐落地取食竹子。\r\n"
      + " 4. 掌心覆有毛，使得大貓熊能夠在寒冷的雪地上行走。\r\n"
      + " 5.大貓熊身體顏色主要為黑白兩色。耳朵、眼斑、鼻頭、肩背部和四肢為黑色，其餘部位為白色。相對比例較小的黑色耳朵有減少熱量散失的功能。",
    behavior: "1.獨居的動物，除了交配季節或雌性的育幼時期，牠們都是獨自居住的。\r\n"
      + "  2.最活躍的時間在早晨和黃昏，但竹子所含熱量低，為減少能量的消耗，牠們每天的睡眠時間約10小時，剩餘時間則大多在覓食和進食。",
    diet: "大貓熊以竹為主食(佔日糧中大約99%)",
    crisis: "過去大貓熊棲息地裡的竹林竹種較為單一，1983年曾發生棲地內箭竹週期性大規模開花枯死而有大貓熊餓死的情形。",
    interpretation: "", themeName: "YA!大貓熊-臺北大貓熊保育網",
    themeURL: "http://newweb.zoo.gov.tw/panda/", adopt: "", code: "Panda",
    pictures: [
      MediaLink(
        url: "http://www.zoo.gov.tw/iTAP/03_Animals/PandaHouse/Panda_Pic01.jpg",
        alternativeText: "大貓熊「團團」和「圓圓」"),
      MediaLink(
        url: "http://www.zoo.gov.tw/iTAP/03_Animals/PandaHouse/Panda_Pic02.jpg",
        alternativeText: "「圓仔」跟媽媽互動"),
      MediaLink(
        url: "http://www.zoo.gov.tw/iTAP/03_Animals/PandaHouse/Panda_Pic03.jpg",
        alternativeText: "大貓熊「圓仔」"),
      MediaLink(
        url: "http://www.zoo.gov.tw/iTAP/03_Animals/PandaHouse/Panda_Pic04.jpg",
        alternativeText: "大貓熊「團團」和「圓圓」"),
    ],
    pdfs: [
      MediaLink(
        url: "http://www.zoo.gov.tw/iTAP/03_Animals/PandaHouse/Panda_PDF01.pdf",
        alternativeText: "「遇見大貓熊」學習單(4.2MB)"),
      MediaLink(
        url: "http://www.zoo.gov.tw/iTAP/03_Animals/PandaHouse/Panda_PDF02.pdf",
        alternativeText: "「遇見大貓熊」解答(1.18MB)"),
    ],
    voices: [
      MediaLink(
        url:
          "http://mediasys.taipei.gov.tw/tcg/service/KMStorage/355/894E598B-8A9F-BAA8-206D-8DF52A8C5763/Panda_Voice01.mp3",
        alternativeText: "雌大貓熊咩叫聲"),
      MediaLink(
        url:
          "http://mediasys.taipei.gov.tw/tcg/service/KMStorage/355/3FAC21EE-A863-6E2C-BF12-4E6FEF67BDE/Panda_Voice02.mp3",
        alternativeText: "雌雄大貓熊交配時的叫聲"),
      MediaLink(
        url:
          "http://mediasys.taipei.gov.tw/tcg/service/KMStorage/355/ADB04074-6156-5C7C-1630-B4E88BAD5147/Panda_Voice03.mp3",
        alternativeText: "山豬老大ABC第13集Bears"),
    ],
    videoURL: "http://www.youtube.com/playlist?list=PLWYak5Af5-DvboTzxQYeg7aKYA9UHYwSf",
    update: "########", cid: "1", summary: "", keywords: "", poiGroup: "")

  @Test func zooRecordKeepsEverySourceFieldThroughTheLog() throws {
    let event = DomainEvent.zoo(
      .imported(AnimalImported(record: Self.giantPanda, source: "taipei-zoo-animals.json")))
    let json = domainJSON(event)
    #expect(
      json.hasPrefix(
        #"{"id":"zoo-ailuropoda-melanoleuca","sourceID":1,"nameChinese":"大貓熊","nameEnglish":"Giant Panda","#
      ))
    #expect(json.contains(#"公克。\r\n 2. 具有"#))
    #expect(
      json.contains("\"update\":\"########\",\"cid\":\"1\",\"source\":\"taipei-zoo-animals.json\"}")
    )
    #expect(!json.contains("interpretation"))
    #expect(try domainDecode("AnimalImported", json) == event)
    // The animal is its Latin name, not the table's row number.
    #expect(event.streamName == "animal-zoo-ailuropoda-melanoleuca")
  }

  /// A log written before schema 2 names the animal by its `_id`, and keeps doing so: its
  /// events are read as they were written (the same stream, the same id).
  @Test func aSchemaOneRecordKeepsTheIdItWasWrittenWith() throws {
    let old =
      #"{"sourceID":1,"nameChinese":"大貓熊","nameLatin":"Ailuropoda melanoleuca"}"#
    let decoded = try domainDecode("AnimalImported", old, schemaVersion: 1)
    guard case .zoo(.imported(let imported))? = decoded else {
      Issue.record("decoded \(String(describing: decoded))")
      return
    }
    #expect(imported.record.id == .imported(sourceID: 1))
    #expect(imported.streamName == "animal-zoo-1")
    // Schema 1 has no id, schema 2 needs one, and an inserted animal's is refused.
    #expect(throws: EventsError.self) {
      try domainDecode(
        "AnimalImported", #"{"id":"zoo-a","sourceID":1}"#, schemaVersion: 1)
    }
    #expect(throws: EventsError.self) {
      try domainDecode("AnimalImported", #"{"sourceID":1}"#, schemaVersion: 2)
    }
    #expect(throws: EventsError.self) {
      try domainDecode("AnimalImported", #"{"id":"user-1","sourceID":1}"#, schemaVersion: 2)
    }
  }

  @Test func zooRecordWithEmptySlotsAndAMalformedGeoIsKeptAsIs() throws {
    let empty = MediaLink(url: "")
    let kookaburra = AnimalRecord(
      sourceID: 19, nameChinese: "笑翠鳥", nameEnglish: "Laughing Kookaburra",
      nameLatin: "Dacelo novaeguineae", alsoKnownAs: "笑鴗", location: "熱帶雨林區",
      geo: "MULTIPOINT ((121.5827151 24.9963569)", phylum: "脊索動物門", taxonomicClass: "鳥綱",
      order: "佛法僧目", family: "翡翠科", conservation: "暫無危機 LC",
      pictures: [
        MediaLink(
          url:
            "http://www.zoo.gov.tw/iTAP/03_Animals/RainForest/LaughingKookaburra_LK/LaughingKookaburra01.jpg",
          alternativeText: "笑翠鳥"),
        MediaLink(
          url:
            "http://www.zoo.gov.tw/iTAP/03_Animals/RainForest/LaughingKookaburra_LK/LaughingKookaburra02.jpg",
          alternativeText: "笑翠鳥"),
        empty, empty,
      ],
      pdfs: [empty, empty], voices: [empty, empty, empty])
    let event = DomainEvent.zoo(.imported(AnimalImported(record: kookaburra)))
    let json = domainJSON(event)
    #expect(json.contains(#"{},{}],"pdfs":[{},{}],"voices":[{},{},{}]}"#))
    let decoded = try #require(try domainDecode("AnimalImported", json))
    guard case .zoo(.imported(let imported)) = decoded else {
      Issue.record("decoded \(decoded)")
      return
    }
    #expect(imported.record == kookaburra)
    #expect(imported.record.pictures[2].isEmpty)
    #expect(imported.record.geo == "MULTIPOINT ((121.5827151 24.9963569)")
  }

  @Test func zooRecordInTheCurrentKeyStyleHoldsItsCoordinate() throws {
    var record = AnimalRecord(sourceID: 1, nameChinese: "大貓熊", nameEnglish: "Giant Panda")
    record.coordinate = try Coordinate(latitude: 24.9971109, longitude: 121.5831587)
    let json = domainJSON(.zoo(.imported(AnimalImported(record: record))))
    #expect(
      json
        == #"{"id":"zoo-1","sourceID":1,"nameChinese":"大貓熊","nameEnglish":"Giant Panda","#
        + #""coordinate":{"latitude":24.9971109,"longitude":121.5831587}}"#)
  }

  /// Contacts from `contacts-v3.json`, verbatim: `companyName` empty, `null`, missing.
  @Test(arguments: [
    #"{"name": "Elmer Fudd", "id": "3", "companyName": "", "isFavorite": false, "smallImageURL": "https://s3.amazonaws.com/technical-challenge/v3/images/elmer-fudd-small.jpg", "largeImageURL": "https://s3.amazonaws.com/technical-challenge/v3/images/elmer-fudd-large.jpg", "emailAddress": "Elmer.Fudd@wabbithunters.com", "birthdate": "1950-07-20", "phone": {"home": "732-442-5218", "mobile": "732-442-5220"}, "address": {"street": "1650 S Harbor Blvd", "city": "Anaheim", "state": "CA", "country": "US", "zipCode": "92802"}}"#,
    #"{"name": "Harry Potter", "id": "4", "companyName": null, "isFavorite": true, "smallImageURL": "https://s3.amazonaws.com/technical-challenge/v3/images/harry-potter-small.jpg", "largeImageURL": "https://s3.amazonaws.com/technical-challenge/v3/images/harry-potter-large.jpg", "emailAddress": "Harry.Potter@gryffindor.edu", "birthdate": "1980-07-31", "phone": {"work": "808-836-8966", "home": "808-836-6008"}, "address": {"street": "641 W Lake St", "city": "Chicago", "state": "IL", "country": "US", "zipCode": "60661"}}"#,
    #"{"name": "Roger Rabbit", "id": "16", "isFavorite": true, "smallImageURL": "https://s3.amazonaws.com/technical-challenge/v3/images/roger-rabbit-small.jpg", "largeImageURL": "https://s3.amazonaws.com/technical-challenge/v3/images/roger-rabbit-large.jpg", "emailAddress": "Roger.Rabbit@toontown.com", "birthdate": "1988-06-02", "phone": {"work": "212-227-3681"}, "address": {"street": "15 Park Row", "city": "New York", "state": "NY", "country": "US", "zipCode": "10038"}}"#,
  ])
  func sourceContactsDecodeAsContactAddedWithoutACompany(source: String) throws {
    let event = try #require(try domainDecode("ContactAdded", source))
    guard case .contact(.added(let added)) = event else {
      Issue.record("decoded \(event)")
      return
    }
    #expect(added.record.companyName == nil)
    #expect(added.record.birthdate != nil)
    #expect(added.record.address.country == "US")
    #expect(try domainDecode("ContactAdded", domainJSON(event)) == event)
  }

  @Test func sourceContactWithAnEmptyMobileHasNoMobile() throws {
    let json =
      #"{"name": "Miss Piggy", "id": "13", "companyName": "Muppets, Baby", "isFavorite": false, "#
      + #""birthdate": "1987-05-11", "phone": {"work": "602-225-9543", "home": "602-225-9188", "mobile": ""}}"#
    let event = try domainDecode("ContactAdded", json)
    let expected = ContactRecord(
      id: try ContactID("13"), name: "Miss Piggy", companyName: "Muppets, Baby",
      birthdate: try CalendarDate("1987-05-11"),
      phone: PhoneNumbers(work: "602-225-9543", home: "602-225-9188"))
    #expect(event == .contact(.added(ContactAdded(record: expected))))
  }

  @Test func geoJSONFeatureMapsLongitudeLatitudeOrderToACoordinate() throws {
    // "coordinates": [149.98458041136354, -34.98520411042454] is [longitude, latitude].
    let geoJSON: [Double] = [149.98458041136354, -34.98520411042454]
    let record = LocationRecord(
      id: try LocationID("2298eb8d-255e-4198-a20c-cc9c2eac0cf7"), name: "Alpha",
      coordinate: try Coordinate(latitude: geoJSON[1], longitude: geoJSON[0]))
    let events = try LocationDecider.decide(
      .importLocation(record, source: "acmeaom-locations.json"), .initial)
    let encoded = EventVocabulary.encode(.location(events[0]))
    #expect(encoded.stream == "location-2298eb8d-255e-4198-a20c-cc9c2eac0cf7")
    #expect(
      try EventVocabulary.decode(
        type: encoded.type, schemaVersion: 1, data: encoded.data, strict: true)
        == .location(events[0]))
  }

  @Test func fieldObservationsImportWithDerivedStableIds() throws {
    let source = "field-observations.json"
    let records = [
      ("bird", "Red-tailed Hawk", "Standing in tree in middle of wooded area.", "2017-06-14 18:00"),
      (
        "amphibian", "American Bullfrog", "Seated in the grassy area next to the pond.",
        "2017-06-15 11:10"
      ),
      ("mammal", "Black Squirrel", "Standing on granite slab in meadow.", "2017-06-20 13:17"),
    ]
    var ids: Set<ObservationID> = []
    for (classification, title, description, date) in records {
      let record = ObservationRecord(
        classification: try #require(Classification(rawValue: classification)), title: title,
        description: description, date: try ObservationDate.parse(date))
      let command = ObservationCommand.importing(record, source: source)
      let events = try ObservationDecider.decide(command, .initial)
      #expect(events.count == 1)
      ids.insert(command.id)
      #expect(ObservationCommand.importing(record, source: source).id == command.id)
    }
    #expect(ids.count == 3)
  }

  @Test func assessmentStatesSharingZipCodesAllImport() throws {
    let shared = try ["99501", "99502", "99503"].map { try ZipCode($0) }
    for name in ["Alaska", "Arizona", "Arkansas"] {
      let state = try StateName(name)
      let events = try USStateDecider.decide(
        .importState(state, zipCodes: shared, source: "states-zipcodes.assessment-states.json"),
        .initial)
      #expect(events.count == 4)
      #expect(USStateDecider.fold(events).zipCodes == shared)
    }
  }
}
