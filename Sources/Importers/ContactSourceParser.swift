import Events

/// Reads contacts (`contacts-v3.json`).
///
/// Layout: an array of contacts, or `{"contacts": [...]}`. Each record:
/// - `id`: a string (a number is taken as its digits), a valid contact id;
/// - `name`: not empty or only white space;
/// - `companyName`, `smallImageURL`, `largeImageURL`, `emailAddress`: a string, `""`, `null`
///   or missing (the last three all mean none);
/// - `isFavorite`: `true` or `false`; missing means `false`;
/// - `birthdate`: `YYYY-MM-DD`, or `""`, `null` or missing;
/// - `phone` {`work`, `home`, `mobile`} and `address` {`street`, `city`, `state`, `country`,
///   `zipCode`}: objects whose keys come and go, each a string, `""`, `null` or missing.
///
/// Other keys are ignored.
enum ContactSourceParser {
  static func parse(
    _ document: JSONValue, into collector: inout SourceParser.Collector
  ) throws(ImportError) {
    guard let elements = SourceParser.array(in: document, at: ["contacts"]) else {
      throw collector.unexpectedLayout(document, expected: "an array of contact objects")
    }
    collector.forEachRecord(elements, expected: "a contact object {\"id\", \"name\", ...}") {
      collector, index, fields in
      let object = fields.object
      let id = fields.validated(
        "id", object["id"], expected: "a contact id (a string)", acceptingNumbers: true
      ) { text throws(EventsError) in try ContactID(text) }
      let name = fields.title("name", object["name"], noun: "a name")
      let companyName = fields.optionalText("companyName", object["companyName"])
      var isFavorite = false
      switch object["isFavorite"] {
      case nil, .null?: break
      case .bool(let value)?: isFavorite = value
      case let other?: fields.report("isFavorite", other, "expected true or false")
      }
      let smallImageURL = fields.optionalText("smallImageURL", object["smallImageURL"])
      let largeImageURL = fields.optionalText("largeImageURL", object["largeImageURL"])
      let emailAddress = fields.optionalText("emailAddress", object["emailAddress"])
      var birthdate: CalendarDate?
      if let text = fields.optionalText("birthdate", object["birthdate"]), !text.isEmpty {
        birthdate = fields.validated(
          "birthdate", object["birthdate"], expected: "a date as YYYY-MM-DD"
        ) { text throws(EventsError) in try CalendarDate(text) }
      }
      let phoneObject = fields.optionalObject(
        "phone", object["phone"], expected: "an object {\"work\", \"home\", \"mobile\"}")
      let phone = PhoneNumbers(
        work: fields.optionalText("phone.work", phoneObject["work"]),
        home: fields.optionalText("phone.home", phoneObject["home"]),
        mobile: fields.optionalText("phone.mobile", phoneObject["mobile"]))
      let addressObject = fields.optionalObject(
        "address", object["address"],
        expected: "an object {\"street\", \"city\", \"state\", \"country\", \"zipCode\"}")
      let address = PostalAddress(
        street: fields.optionalText("address.street", addressObject["street"]),
        city: fields.optionalText("address.city", addressObject["city"]),
        state: fields.optionalText("address.state", addressObject["state"]),
        country: fields.optionalText("address.country", addressObject["country"]),
        zipCode: fields.optionalText("address.zipCode", addressObject["zipCode"]))
      let idText =
        object["id"]?.stringValue ?? object["id"].flatMap { $0.int64Value.map(String.init) }
      let label = RecordLabel.joined(
        RecordLabel.quoted("id", idText), RecordLabel.quoted("name", object["name"]?.stringValue))
      collector.problems += fields.problems(label: label)
      guard !fields.isRejected, let id, let name else { return }
      let record = ContactRecord(
        id: id, name: name, companyName: companyName, isFavorite: isFavorite,
        smallImageURL: smallImageURL, largeImageURL: largeImageURL, emailAddress: emailAddress,
        birthdate: birthdate, phone: phone, address: address)
      collector.add(
        .contact(.importContact(record, source: collector.sourceName)), index: index, label: label)
    }
  }
}
