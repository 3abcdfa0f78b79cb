// The zoo vocabulary: animals imported from the Taipei Zoo open-data API, and animals inserted
// by the user. Stream: `animal-<id>`, where the id is `zoo-<slug of the name at its place>` for
// imported animals (`zoo-<source _id>` in logs written before schema 2 of `AnimalImported`) and
// `user-<n>` for inserted ones (`animal-zoo-ailuropoda-melanoleuca`, `animal-user-3`), so the
// two never collide.

import Foundation

/// An animal's id: `zoo-<slug>` for an animal imported from the open-data API, `user-<n>` for
/// one inserted by the user (n chosen by the engine, never reused).
///
/// An imported animal's slug is its name at its place, normalised
/// (``imported(latinName:chineseName:coordinate:occurrence:)``): `zoo-ailuropoda-melanoleuca`,
/// `zoo-tomistoma-schlegelii-at-24-9946n-121-5903e`. Logs written before that rule name imported animals by the
/// source's `_id` (`zoo-1`), a slug of digits; those ids stay valid and keep their animals.
public struct AnimalID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// `zoo-<slug>` or `user-<n>`.
  public let rawValue: String
  /// Whether the user inserted the animal (`user-<n>`), rather than an import (`zoo-<slug>`).
  public let isInserted: Bool
  /// The number after `user-`, or after `zoo-` when the slug is all digits (an id by `_id`);
  /// 0 for a slug of letters.
  public let number: Int

  /// What an animal id must be, for messages.
  public static let expectation =
    "an animal id 'zoo-<slug>' (lowercase letters and digits in groups joined by '-', e.g. "
    + "'zoo-ailuropoda-melanoleuca') or 'user-<n>' (n a whole number, e.g. 'user-3')"

  /// The longest slug an id may have.
  static let maximumSlugLength = 200

  /// Validates `text` as an animal id.
  /// - Throws: `EventsError.invalidValue` unless it is `zoo-` followed by a slug (groups of
  ///   lowercase ASCII letters and digits joined by single `-`, at most 200 characters; all
  ///   digits: a whole number without leading zeros of at most 18 digits), or `user-` followed
  ///   by such a whole number.
  public init(_ text: String) throws(EventsError) {
    let isInserted: Bool
    let rest: Substring
    if text.hasPrefix("zoo-") {
      isInserted = false
      rest = text.dropFirst(4)
    } else if text.hasPrefix("user-") {
      isInserted = true
      rest = text.dropFirst(5)
    } else {
      throw EventsError.invalidValue(expected: Self.expectation, found: DomainText.quoted(text))
    }
    let utf8 = rest.utf8
    let allDigits = !utf8.isEmpty && utf8.allSatisfy { $0 &- 0x30 < 10 }
    if allDigits {
      guard utf8.count <= 18, utf8.count == 1 || utf8.first != 0x30, let number = Int(rest)
      else {
        throw EventsError.invalidValue(expected: Self.expectation, found: DomainText.quoted(text))
      }
      self.number = number
    } else {
      guard !isInserted, Self.isSlug(rest) else {
        throw EventsError.invalidValue(expected: Self.expectation, found: DomainText.quoted(text))
      }
      self.number = 0
    }
    self.rawValue = text
    self.isInserted = isInserted
  }

  /// Whether `text` is a slug: groups of `a`-`z` and `0`-`9` joined by single `-`.
  static func isSlug(_ text: Substring) -> Bool {
    let utf8 = text.utf8
    guard !utf8.isEmpty, utf8.count <= maximumSlugLength, utf8.first != 0x2D, utf8.last != 0x2D
    else { return false }
    var previousWasDash = false
    for byte in utf8 {
      if byte == 0x2D {
        if previousWasDash { return false }
        previousWasDash = true
      } else if (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) {
        previousWasDash = false
      } else {
        return false
      }
    }
    return true
  }

  /// The id of an animal imported under the Latin name `latinName`: the name trimmed, its
  /// letters case-folded and stripped of diacritics, every run of other characters (spaces,
  /// punctuation) made one `-` (`"Ailuropoda  melanoleuca"` → `zoo-ailuropoda-melanoleuca`).
  /// `nil` when nothing of it is a letter (a name of digits only would read as an `_id`), or
  /// when the slug would exceed 200 characters.
  public static func imported(latinName: String) -> AnimalID? {
    let slug = slug(of: latinName, spellingOtherLetters: false)
    guard slug.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }),
      slug.utf8.count <= maximumSlugLength
    else { return nil }
    return try? AnimalID("zoo-" + slug)
  }

  /// The id of an animal imported from an open-data record: its name at its place, and which
  /// repeat of that name and place it is in its page (docs/FORMAT.md, "An imported animal is
  /// its name at its place").
  ///
  /// `zoo-<name>[-at-<latitude>-<longitude>][-<occurrence>]`:
  /// - name: the slug of `latinName` as ``imported(latinName:)`` makes it; when that has no
  ///   letter, the slug of `chineseName`, each letter or digit outside ASCII written `u<hex of
  ///   its code point>` (`臺灣黑熊` → `u81fa-u7063-u9ed1-u718a`);
  /// - place, when `coordinate` is given: each degree to 7 decimals, `.` written `-`, trailing
  ///   zeros dropped, then its hemisphere (`24.9971109, 121.5831587` → `at-24-9971109n-121-5831587e`);
  /// - occurrence, from 2 only: `-2` for the second record of a page with the same name and
  ///   place, and so on.
  ///
  /// The name is cut short (a trailing `-` dropped) so that the slug keeps to 200 characters.
  /// Without a coordinate and at occurrence 1 the id is ``imported(latinName:)``'s, so logs
  /// written before this rule keep their animals.
  /// - Returns: `nil` when neither name holds a letter or a digit (the Chinese name) or a letter
  ///   (the Latin name).
  /// - Precondition: `occurrence >= 1`.
  public static func imported(
    latinName: String, chineseName: String, coordinate: Coordinate?, occurrence: Int = 1
  ) -> AnimalID? {
    precondition(occurrence >= 1, "occurrences count from 1")
    var name = slug(of: latinName, spellingOtherLetters: false)
    if !name.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) {
      name = slug(of: chineseName, spellingOtherLetters: true)
    }
    var suffix = ""
    if let coordinate {
      suffix += "-at-" + placeText(coordinate.latitude, positive: "n", negative: "s")
      suffix += "-" + placeText(coordinate.longitude, positive: "e", negative: "w")
    }
    if occurrence > 1 { suffix += "-" + String(occurrence) }
    let room = maximumSlugLength - suffix.utf8.count
    if name.utf8.count > room {
      name = String(decoding: name.utf8.prefix(room), as: UTF8.self)
      while name.hasSuffix("-") { name.removeLast() }
    }
    // A name of digits alone would read as an id by `_id` (`zoo-17`).
    guard name.utf8.contains(where: { $0 >= 0x61 && $0 <= 0x7A }) else { return nil }
    return try? AnimalID("zoo-" + name + suffix)
  }

  /// `text` trimmed, its letters case-folded and stripped of diacritics, every run of other
  /// characters made one `-`. With `spellingOtherLetters`, a letter or digit outside ASCII is
  /// kept as a group of its own, `u<lowercase hex of its code point>`; without, it separates.
  private static func slug(of text: String, spellingOtherLetters: Bool) -> String {
    let folded = text.folding(
      options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil)
    var slug = ""
    var pendingDash = false
    for scalar in folded.unicodeScalars {
      let value = scalar.value
      let isLetter = value >= 0x61 && value <= 0x7A
      let isDigit = value >= 0x30 && value <= 0x39
      let isUpper = value >= 0x41 && value <= 0x5A
      if isLetter || isDigit || isUpper {
        if pendingDash, !slug.isEmpty { slug.append("-") }
        pendingDash = false
        slug.unicodeScalars.append(isUpper ? Unicode.Scalar(value + 0x20) ?? scalar : scalar)
      } else if spellingOtherLetters, value > 0x7F,
        scalar.properties.isAlphabetic || scalar.properties.numericType != nil
      {
        if !slug.isEmpty { slug.append("-") }
        slug += "u" + String(value, radix: 16)
        pendingDash = true
      } else {
        pendingDash = true
      }
    }
    return slug
  }

  /// A degree as an id writes it: rounded to 7 decimals (about a centimetre), `.` as `-`,
  /// trailing zeros dropped, then the hemisphere's letter (`-33.5` → `33-5s`).
  private static func placeText(_ degrees: Double, positive: String, negative: String)
    -> String
  {
    // Coordinates are within ±180, so the scaled value fits an Int64 exactly.
    let scaled = Int64((abs(degrees) * 10_000_000).rounded())
    var text = String(scaled / 10_000_000)
    var fraction = String(scaled % 10_000_000)
    if scaled % 10_000_000 != 0 {
      fraction = String(repeating: "0", count: 7 - fraction.count) + fraction
      while fraction.hasSuffix("0") { fraction.removeLast() }
      text += "-" + fraction
    }
    return text + (degrees < 0 && scaled != 0 ? negative : positive)
  }

  private init(isInserted: Bool, number: Int) {
    precondition(number >= 0, "animal numbers are not negative")
    self.rawValue = (isInserted ? "user-" : "zoo-") + String(number)
    self.isInserted = isInserted
    self.number = number
  }

  /// The id by `_id` that logs written before schema 2 of `AnimalImported` give the animal
  /// imported from the source record whose `_id` is `sourceID`: `zoo-<sourceID>`.
  /// - Precondition: `sourceID >= 0`.
  public static func imported(sourceID: Int) -> AnimalID {
    AnimalID(isInserted: false, number: sourceID)
  }

  /// The id of the `number`th animal the user inserted.
  /// - Precondition: `number >= 0`.
  public static func inserted(number: Int) -> AnimalID {
    AnimalID(isInserted: true, number: number)
  }

  /// The animal's stream, `animal-<id>`.
  public var streamName: String { EntityKind.animal.streamName(for: rawValue) }

  public var description: String { rawValue }

  /// Imported before inserted, then by number (ids by `_id`, inserted animals), then by slug.
  public static func < (lhs: AnimalID, rhs: AnimalID) -> Bool {
    (lhs.isInserted ? 1 : 0, lhs.number, lhs.rawValue)
      < (rhs.isInserted ? 1 : 0, rhs.number, rhs.rawValue)
  }
}

extension AnimalID: PayloadText {}

/// A link to a picture, document, sound or video, with its alternative text.
///
/// JSON: `{"url"?,"alt"?}`; each is omitted when empty (the source has empty slots).
public struct MediaLink: Sendable, Equatable, Hashable {
  /// The address, as the source wrote it; may be empty.
  public var url: String
  /// The text describing it (the source's `..._ALT`); may be empty.
  public var alternativeText: String

  public init(url: String, alternativeText: String = "") {
    self.url = url
    self.alternativeText = alternativeText
  }

  /// Whether both the address and the text are empty.
  public var isEmpty: Bool { url.isEmpty && alternativeText.isEmpty }
}

extension MediaLink: PayloadComponent {
  /// The object's keys.
  enum Key: String, PayloadKey {
    case url, alt

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .url, .alt: "a string"
      }
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var url = ""
    var alternativeText = ""
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .url: url = try cursor.decodeString(field, scope)
      // No read model shows a link's text (the catalogue shows the first picture's address).
      case .alt: alternativeText = try cursor.decodeUnshownString(field, scope)
      }
    }
    self.init(url: url, alternativeText: alternativeText)
  }

  // Not inlined into the encoder of the payload holding it: inlined, the two closures broke
  // the optimizer (an ownership error in `ContactAdded.encode`, Swift 6.0 release builds).
  @inline(never)
  func encode(to writer: inout JSONWriter) {
    writer.object(Key.self) { key, members in
      switch key {
      case .url: members.add(unlessEmpty: url)
      case .alt: members.add(unlessEmpty: alternativeText)
      }
    }
  }
}

/// An animal as the Taipei Zoo open-data API describes it: every field a catalogue or detail
/// page shows. Text is kept exactly as the source has it (`\r\n` included); a field the source
/// lacks is empty.
///
/// Source keys (old style / current style): `_id`; `A_Name_Ch` (the first key of each old-style
/// record carries a byte-order mark: `\u{FEFF}A_Name_Ch`) / `a_name_ch`; and so on for every
/// field below. The current style has `a_longitude` / `a_latitude` (→ `coordinate`) besides
/// `a_geo`.
public struct AnimalRecord: Sendable, Equatable, Hashable {
  /// The source's `_id`.
  public fileprivate(set) var sourceID: Int
  /// The animal's id: `zoo-<slug of the name at its place>`, the identity that stays when the source
  /// renumbers its rows (`_id` is a row number; the source's older and current pages give
  /// different animals the same `_id`). Records read from logs written before schema 2 keep
  /// `zoo-<_id>`.
  public var id: AnimalID
  /// `A_Name_Ch`: the Chinese name (`大貓熊`).
  public var nameChinese: String
  /// `A_Name_En`: the English name (`Giant Panda`).
  public var nameEnglish: String
  /// `A_Name_Latin`: the scientific name (`Ailuropoda melanoleuca`).
  public var nameLatin: String
  /// `A_AlsoKnown`: other names.
  public var alsoKnownAs: String
  /// `A_Location`: the enclosure or area (`大貓熊館`).
  public var location: String
  /// `A_Geo`: the enclosure's points as the source writes them, unparsed
  /// (`MULTIPOINT ((121.5831587 24.9971109))`; real records hold malformed ones).
  public var geo: String
  /// `a_latitude` / `a_longitude` (current key style only).
  public var coordinate: Coordinate?
  /// `A_Phylum`.
  public var phylum: String
  /// `A_Class`.
  public var taxonomicClass: String
  /// `A_Order`.
  public var order: String
  /// `A_Family`.
  public var family: String
  /// `A_Conservation`: the conservation status (`易危(VU)`).
  public var conservation: String
  /// `A_Distribution`.
  public var distribution: String
  /// `A_Habitat`.
  public var habitat: String
  /// `A_Feature`: physical features.
  public var feature: String
  /// `A_Behavior`.
  public var behavior: String
  /// `A_Diet`.
  public var diet: String
  /// `A_Crisis`: threats to the species.
  public var crisis: String
  /// `A_Interpretation`.
  public var interpretation: String
  /// `A_Theme_Name`: the name of a related theme site.
  public var themeName: String
  /// `A_Theme_URL`: its address.
  public var themeURL: String
  /// `A_Adopt`: adoption information.
  public var adopt: String
  /// `A_Code`: the zoo's code (`Panda`).
  public var code: String
  /// `A_Pic01_URL`/`A_Pic01_ALT` ... `A_Pic04_...`: one entry per source slot, in order; slot
  /// n is `pictures[n - 1]`, empty slots included.
  public var pictures: [MediaLink]
  /// `A_pdf01_...`, `A_pdf02_...`: documents, one entry per slot.
  public var pdfs: [MediaLink]
  /// `A_Voice01_...` ... `A_Voice03_...`: sounds, one entry per slot.
  public var voices: [MediaLink]
  /// `A_Vedio_URL` (sic): a video.
  public var videoURL: String
  /// `A_Update`: when the source last changed the record, as written (`2017/9/29`; some hold
  /// `########`).
  public var update: String
  /// `A_CID`: the source's category id.
  public var cid: String
  /// `A_Summary`.
  public var summary: String
  /// `A_Keywords`.
  public var keywords: String
  /// `A_POIGroup`.
  public var poiGroup: String

  /// Creates a record; every text field defaults to empty.
  /// - Precondition: `sourceID >= 0` (importers reject other `_id`s as invalid source data).
  /// - Parameter id: the animal's id; by default the one its Latin name gives
  ///   (``AnimalID/imported(latinName:)``), or `zoo-<sourceID>` when it has none.
  public init(
    id: AnimalID? = nil, sourceID: Int, nameChinese: String = "", nameEnglish: String = "",
    nameLatin: String = "",
    alsoKnownAs: String = "", location: String = "", geo: String = "",
    coordinate: Coordinate? = nil, phylum: String = "", taxonomicClass: String = "",
    order: String = "", family: String = "", conservation: String = "",
    distribution: String = "", habitat: String = "", feature: String = "", behavior: String = "",
    diet: String = "", crisis: String = "", interpretation: String = "", themeName: String = "",
    themeURL: String = "", adopt: String = "", code: String = "", pictures: [MediaLink] = [],
    pdfs: [MediaLink] = [], voices: [MediaLink] = [], videoURL: String = "", update: String = "",
    cid: String = "", summary: String = "", keywords: String = "", poiGroup: String = ""
  ) {
    precondition(sourceID >= 0, "a zoo record's _id is a whole number from 0")
    self.id = id ?? AnimalID.imported(latinName: nameLatin) ?? .imported(sourceID: sourceID)
    self.sourceID = sourceID
    self.nameChinese = nameChinese
    self.nameEnglish = nameEnglish
    self.nameLatin = nameLatin
    self.alsoKnownAs = alsoKnownAs
    self.location = location
    self.geo = geo
    self.coordinate = coordinate
    self.phylum = phylum
    self.taxonomicClass = taxonomicClass
    self.order = order
    self.family = family
    self.conservation = conservation
    self.distribution = distribution
    self.habitat = habitat
    self.feature = feature
    self.behavior = behavior
    self.diet = diet
    self.crisis = crisis
    self.interpretation = interpretation
    self.themeName = themeName
    self.themeURL = themeURL
    self.adopt = adopt
    self.code = code
    self.pictures = pictures
    self.pdfs = pdfs
    self.voices = voices
    self.videoURL = videoURL
    self.update = update
    self.cid = cid
    self.summary = summary
    self.keywords = keywords
    self.poiGroup = poiGroup
  }

}

// MARK: - Events

/// An animal was imported from the open-data API; a later `AnimalImported` on the same stream
/// replaces the whole record with the source's new version (users cannot edit imported
/// animals, only remove them).
///
/// JSON (schema version 2), keys in this order, text fields and empty lists omitted when empty:
/// `{"id","sourceID","nameChinese","nameEnglish","nameLatin","alsoKnownAs","location","geo",
/// "coordinate":{"latitude","longitude"},"phylum","class","order","family","conservation",
/// "distribution","habitat","feature","behavior","diet","crisis","interpretation","themeName",
/// "themeURL","adopt","code","pictures":[{"url","alt"}],"pdfs":[...],"voices":[...],"videoURL",
/// "update","cid","summary","keywords","poiGroup","source"}`. `id` and `sourceID` are required.
/// Schema version 1 (logs written before the Latin-name identity) has no `id`: the animal is
/// `zoo-<sourceID>`, as it was when written.
public struct AnimalImported: EventPayload, Hashable {
  public static let eventType = "AnimalImported"
  public static let schemaVersion = 2

  /// The source's record.
  public var record: AnimalRecord
  /// The file name or URL it was imported from.
  public var source: String?

  public init(record: AnimalRecord, source: String? = nil) {
    self.record = record
    self.source = source
  }

  public var streamName: String { record.id.streamName }

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case id, sourceID, nameChinese, nameEnglish, nameLatin, alsoKnownAs, location, geo
    case coordinate, phylum, `class`, order, family, conservation, distribution, habitat
    case feature, behavior, diet, crisis, interpretation, themeName, themeURL, adopt, code
    case pictures, pdfs, voices, videoURL, update, cid, summary, keywords, poiGroup, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: "an imported animal's id 'zoo-<slug>' (schema version 2)"
      case .sourceID: "the source's _id, a whole number from 0"
      case .coordinate: Coordinate.objectExpectation
      case .pictures, .pdfs, .voices: "an array of {\"url\", \"alt\"} objects"
      case .nameChinese, .nameEnglish, .nameLatin, .alsoKnownAs, .location, .geo, .phylum,
        .class, .order, .family, .conservation, .distribution, .habitat, .feature, .behavior,
        .diet, .crisis, .interpretation, .themeName, .themeURL, .adopt, .code, .videoURL,
        .update, .cid, .summary, .keywords, .poiGroup, .source:
        "a string"
      }
    }
  }

  public func encode(to writer: inout JSONWriter) {
    writer.object(Key.self) { key, members in
      switch key {
      case .id: members.add(record.id.rawValue)
      case .sourceID: members.add(record.sourceID)
      case .nameChinese: members.add(unlessEmpty: record.nameChinese)
      case .nameEnglish: members.add(unlessEmpty: record.nameEnglish)
      case .nameLatin: members.add(unlessEmpty: record.nameLatin)
      case .alsoKnownAs: members.add(unlessEmpty: record.alsoKnownAs)
      case .location: members.add(unlessEmpty: record.location)
      case .geo: members.add(unlessEmpty: record.geo)
      case .coordinate: members.add(record.coordinate)
      case .phylum: members.add(unlessEmpty: record.phylum)
      case .class: members.add(unlessEmpty: record.taxonomicClass)
      case .order: members.add(unlessEmpty: record.order)
      case .family: members.add(unlessEmpty: record.family)
      case .conservation: members.add(unlessEmpty: record.conservation)
      case .distribution: members.add(unlessEmpty: record.distribution)
      case .habitat: members.add(unlessEmpty: record.habitat)
      case .feature: members.add(unlessEmpty: record.feature)
      case .behavior: members.add(unlessEmpty: record.behavior)
      case .diet: members.add(unlessEmpty: record.diet)
      case .crisis: members.add(unlessEmpty: record.crisis)
      case .interpretation: members.add(unlessEmpty: record.interpretation)
      case .themeName: members.add(unlessEmpty: record.themeName)
      case .themeURL: members.add(unlessEmpty: record.themeURL)
      case .adopt: members.add(unlessEmpty: record.adopt)
      case .code: members.add(unlessEmpty: record.code)
      case .pictures: members.add(unlessEmpty: record.pictures)
      case .pdfs: members.add(unlessEmpty: record.pdfs)
      case .voices: members.add(unlessEmpty: record.voices)
      case .videoURL: members.add(unlessEmpty: record.videoURL)
      case .update: members.add(unlessEmpty: record.update)
      case .cid: members.add(unlessEmpty: record.cid)
      case .summary: members.add(unlessEmpty: record.summary)
      case .keywords: members.add(unlessEmpty: record.keywords)
      case .poiGroup: members.add(unlessEmpty: record.poiGroup)
      case .source: members.add(source)
      }
    }
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    switch schemaVersion {
    case 1, 2: self = try Self(versions1And2: &cursor, schemaVersion: schemaVersion, strict: strict)
    default: throw Self.unsupported(schemaVersion)
    }
  }

  private init(
    versions1And2 cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, keys: Key.self, strict: strict)
    var sourceID: Int?
    var id: AnimalID?
    // Given an id, the placeholder skips deriving one from an empty Latin name.
    var record = AnimalRecord(id: .imported(sourceID: 0), sourceID: 0)
    var source: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      func text() throws(EventsError) -> String { try cursor.decodeString(field, scope) }
      // What the catalogue does not show (it keeps the names, the location and the pictures).
      func detail() throws(EventsError) -> String { try cursor.decodeUnshownString(field, scope) }
      func links() throws(EventsError) -> [MediaLink] {
        var result: [MediaLink] = []
        try cursor.decodeArray(field, scope) { index, cursor throws(EventsError) in
          result.append(try cursor.decodeComponent(MediaLink.self, field, scope, index: index))
        }
        return result
      }
      switch key {
      case .id:
        guard schemaVersion >= 2 else {
          throw EventsError.invalidField(
            type: Self.eventType, field: "id", expected: "no 'id' in schema version 1",
            found: "an 'id'")
        }
        let decoded = try cursor.decodeText(AnimalID.self, field, scope)
        guard !decoded.isInserted else {
          throw EventsError.invalidField(
            type: Self.eventType, field: "id", expected: "an imported animal's id 'zoo-<slug>'",
            found: DomainText.quoted(decoded.rawValue))
        }
        id = decoded
      case .sourceID:
        let value = try cursor.decodeInt(field, scope)
        guard value >= 0 else { throw scope.invalid(field, found: "the number \(value)") }
        sourceID = value
      case .nameChinese: record.nameChinese = try text()
      case .nameEnglish: record.nameEnglish = try text()
      case .nameLatin: record.nameLatin = try detail()
      case .alsoKnownAs: record.alsoKnownAs = try detail()
      case .location: record.location = try text()
      case .geo: record.geo = try detail()
      case .coordinate:
        record.coordinate = try cursor.decodeComponent(Coordinate.self, field, scope)
      case .phylum: record.phylum = try detail()
      case .class: record.taxonomicClass = try detail()
      case .order: record.order = try detail()
      case .family: record.family = try detail()
      case .conservation: record.conservation = try detail()
      case .distribution: record.distribution = try detail()
      case .habitat: record.habitat = try detail()
      case .feature: record.feature = try detail()
      case .behavior: record.behavior = try detail()
      case .diet: record.diet = try detail()
      case .crisis: record.crisis = try detail()
      case .interpretation: record.interpretation = try detail()
      case .themeName: record.themeName = try detail()
      case .themeURL: record.themeURL = try detail()
      case .adopt: record.adopt = try detail()
      case .code: record.code = try detail()
      case .pictures: record.pictures = try links()
      case .pdfs: record.pdfs = try links()
      case .voices: record.voices = try links()
      case .videoURL: record.videoURL = try detail()
      case .update: record.update = try detail()
      case .cid: record.cid = try detail()
      case .summary: record.summary = try detail()
      case .keywords: record.keywords = try detail()
      case .poiGroup: record.poiGroup = try detail()
      case .source: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    record.sourceID = try scope.required(sourceID, Key.sourceID)
    // Schema 1 named the animal by its `_id`; schema 2 says its id.
    record.id =
      schemaVersion == 1 ? .imported(sourceID: record.sourceID) : try scope.required(id, Key.id)
    self.record = record
    self.source = source
  }
}

/// The user inserted an animal.
///
/// JSON: `{"id","name","description","picturePath"?}`.
public struct AnimalInserted: KeyedPayload, Hashable {
  public static let eventType = "AnimalInserted"
  public static let schemaVersion = 1

  /// The animal's id, `user-<n>`.
  public var id: AnimalID
  /// Its name; never empty or blank.
  public var name: String
  /// Its description; may be empty.
  public var description: String
  /// The path of its picture on the device, if it has one.
  public var picturePath: String?

  /// - Precondition: `id.isInserted`.
  public init(id: AnimalID, name: String, description: String, picturePath: String? = nil) {
    precondition(id.isInserted, "an inserted animal's id is user-<n>")
    self.id = id
    self.name = name
    self.description = description
    self.picturePath = picturePath
  }

  public var streamName: String { id.streamName }

  static let insertedExpectation = "an inserted animal's id 'user-<n>' (e.g. 'user-1')"

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case id, name, description, picturePath

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: AnimalInserted.insertedExpectation
      case .name: "a name that is not empty or only white space"
      case .description, .picturePath: "a string"
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .id: members.add(id.rawValue)
    case .name: members.add(name)
    case .description: members.add(description)
    case .picturePath: members.add(picturePath)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var id: AnimalID?
    var name: String?
    var description: String?
    var picturePath: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .id:
        let value = try cursor.decodeText(AnimalID.self, field, scope)
        guard value.isInserted else { throw scope.invalid(field, found: "'\(value)'") }
        id = value
      case .name: name = try cursor.decodeTitle(field, scope)
      case .description: description = try cursor.decodeString(field, scope)
      case .picturePath: picturePath = try cursor.decodeOptionalString(field, scope)
      }
    }
    self.id = try scope.required(id, Key.id)
    self.name = try scope.required(name, Key.name)
    self.description = try scope.required(description, Key.description)
    self.picturePath = picturePath
  }
}

/// An animal, imported or inserted, was removed.
///
/// JSON: `{"id"}`.
public struct AnimalRemoved: IDPayload, Hashable {
  public static let eventType = "AnimalRemoved"
  public static let schemaVersion = 1

  /// The animal's id.
  public var id: AnimalID

  public init(id: AnimalID) {
    self.id = id
  }

  public var streamName: String { id.streamName }

  static let layout = AnimalID.idPayloadLayout()
}

/// The zoo domain's events.
public enum ZooEvent: Sendable, Equatable, Hashable {
  indirect case imported(AnimalImported)
  case inserted(AnimalInserted)
  case removed(AnimalRemoved)

  /// The stream the event belongs to.
  public var streamName: String { DomainEvent.zoo(self).streamName }
}
