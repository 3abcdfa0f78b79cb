import Engine
import Events

/// Reads the Taipei Zoo open-data API's animals (`taipei-zoo-animals.json`).
///
/// Layout: `{"result": {"limit", "offset", "count", "results": [...]}}` (or `{"results": [...]}`,
/// or the array alone). Both key styles the API has served are read, in any mix:
/// `A_Name_Ch`, `A_Pic01_URL`, `A_Geo` ... (old) and `a_name_ch`, `a_pic01_url`, `a_geo`,
/// `a_longitude` / `a_latitude` (current). Keys match in any letter case, and byte-order marks
/// inside a key are dropped (the old style's first key is `"\u{FEFF}A_Name_Ch"`).
///
/// - `_id`: a whole number from 0 (or a string of digits), kept as the record's `sourceID`.
/// - The animal's id is its name at its place, with a counter for repeats in source order
///   (`ZooRecordIdentities`); a record with neither a Latin nor a Chinese name is rejected.
/// - Text is kept exactly as the source has it (`\r\n`, `########` dates, `?` for characters
///   the API could not encode); `null` is empty text, a number its digits.
/// - Picture, PDF and voice slots (`A_Pic01_URL` / `A_Pic01_ALT` ...) become one link per slot
///   up to the highest slot present, empty slots included.
/// - `a_longitude` / `a_latitude` (numbers, or strings holding them) give the coordinate; both
///   or neither must be present.
/// - `_importdate` and keys this engine does not know are ignored.
enum ZooSourceParser {
  static func parse(
    _ document: JSONValue, into collector: inout SourceParser.Collector
  ) throws(ImportError) {
    guard
      let elements = SourceParser.array(in: document, at: ["result", "results"])
        ?? SourceParser.array(in: document, at: ["results"])
    else {
      throw collector.unexpectedLayout(
        document, expected: "{\"result\": {\"results\": [...]}} (the open-data API's answer)")
    }
    if let result = document["result"], let total = result["count"]?.int64Value,
      total > elements.count
    {
      let offset = result["offset"]?.int64Value ?? 0
      collector.notes.append(
        "'\(collector.sourceName)' is one page of the API's answer: \(elements.count) of "
          + "\(total) animals from offset \(offset); import the other pages for the rest")
    }
    var identities = ZooRecordIdentities()
    collector.forEachRecord(elements, expected: "an animal object {\"_id\", \"A_Name_Ch\", ...}") {
      collector, index, fields in
      if let inserted = fields.object["replay_inserted"] {
        // An animal a user inserted, as `replay export animals` writes it.
        let (command, label) = readInserted(inserted, &fields)
        collector.problems += fields.problems(label: label)
        guard !fields.isRejected, let command else { return }
        collector.add(.animal(command), index: index, label: label)
        return
      }
      let (read, label) = read(&fields)
      collector.problems += fields.problems(label: label)
      guard !fields.isRejected, var record = read, let id = identities.id(for: record) else {
        return
      }
      record.id = id
      collector.add(
        .animal(.importAnimal(record, source: collector.sourceName)), index: index, label: label)
    }
  }

  /// An inserted animal's record (`{"replay_inserted": "user-<n>", "a_name_ch",
  /// "replay_description"?, "replay_picture"?}`): its insertion again, which changes nothing
  /// when the log already has that animal so.
  private static func readInserted(
    _ idValue: JSONValue, _ fields: inout RecordFields
  ) -> (ZooCommand?, String?) {
    let expectation = "an inserted animal's id 'user-<n>'"
    let idText = fields.requiredText("replay_inserted", idValue, expected: expectation)
    let id = idText.flatMap { try? AnimalID($0) }
    if idText != nil, id?.isInserted != true {
      fields.report("replay_inserted", idValue, "expected " + expectation)
    }
    let name =
      fields.requiredText(
        "a_name_ch", fields.object["a_name_ch"], expected: "the animal's name") ?? ""
    let blank = name.allSatisfy(\.isWhitespace)
    if blank {
      fields.report(
        "a_name_ch", fields.object["a_name_ch"], "expected a name that is not empty or blank")
    }
    let description =
      fields.optionalText("replay_description", fields.object["replay_description"]) ?? ""
    let picture = fields.optionalText("replay_picture", fields.object["replay_picture"])
    let label = RecordLabel.joined(
      idText.map { "id \($0)" }, RecordLabel.quoted("name", name.isEmpty ? nil : name))
    guard let id, id.isInserted, !blank else { return (nil, label) }
    return (
      .insertAnimal(id: id, name: name, description: description, picturePath: picture), label
    )
  }

  /// The record, or `nil` when its `_id` is bad, and its label.
  private static func read(_ fields: inout RecordFields) -> (AnimalRecord?, String?) {
    let members = fields.object.members.map { member in
      // The old key style's first key carries a byte-order mark: `"\u{FEFF}A_Name_Ch"`.
      let key = String(
        String.UnicodeScalarView(member.key.unicodeScalars.filter { $0 != "\u{FEFF}" }))
      return (key: key, normalized: key.lowercased(), value: member.value)
    }
    var sourceID: Int?
    if let idMember = members.first(where: { $0.normalized == "_id" }) {
      sourceID = self.sourceID(idMember.value, key: idMember.key, &fields)
    } else {
      fields.report("_id", nil, "expected the record's _id, a whole number from 0")
    }
    var record = AnimalRecord(sourceID: sourceID ?? 0)
    var coordinateParts: [String: (key: String, value: JSONValue, number: Double?)] = [:]
    var links: [String: [Int: (url: String, alt: String)]] = [:]
    for member in members where member.normalized != "_id" {
      if let path = ZooSourceFields.text[member.normalized] {
        record[keyPath: path] = text(member.value, key: member.key, &fields)
      } else if member.normalized == "a_longitude" || member.normalized == "a_latitude" {
        coordinateParts[member.normalized] = (
          member.key, member.value, fields.optionalNumber(member.key, member.value)
        )
      } else if let slot = slot(member.normalized) {
        let value = text(member.value, key: member.key, &fields)
        var entry = links[slot.prefix, default: [:]][slot.number] ?? ("", "")
        if slot.isURL { entry.url = value } else { entry.alt = value }
        links[slot.prefix, default: [:]][slot.number] = entry
      }
    }
    for (prefix, list) in ZooSourceFields.links {
      guard let slots = links[prefix], let highest = slots.keys.max() else { continue }
      record[keyPath: list] = (1...highest).map { number in
        let entry = slots[number] ?? ("", "")
        return MediaLink(url: entry.url, alternativeText: entry.alt)
      }
    }
    record.coordinate = coordinate(
      longitude: coordinateParts["a_longitude"], latitude: coordinateParts["a_latitude"], &fields)
    // An animal is its name at its place: `_id` is the table's row number, which the source
    // reuses for other animals between versions (docs/FORMAT.md, "An imported animal is its
    // name at its place"). The repeat counter is the page's to give (`ZooRecordIdentities`).
    let id = AnimalID.imported(
      latinName: record.nameLatin, chineseName: record.nameChinese,
      coordinate: record.coordinate)
    if let id {
      record.id = id
    } else {
      let nameMember = members.first(where: { $0.normalized == "a_name_ch" })
      fields.report(
        nameMember?.key ?? "A_Name_Ch", nameMember?.value,
        "expected a Latin name (a_name_latin) or a Chinese name, which identify the animal "
          + "(the _id is a row number the source reuses)")
    }
    let name = record.nameChinese.isEmpty ? record.nameEnglish : record.nameChinese
    let label = RecordLabel.joined(
      sourceID.map { "_id \($0)" }, RecordLabel.quoted("name", name.isEmpty ? nil : name))
    return (sourceID == nil || id == nil ? nil : record, label)
  }

  /// The coordinate from `a_longitude` and `a_latitude`: both or neither must hold a number.
  private static func coordinate(
    longitude: (key: String, value: JSONValue, number: Double?)?,
    latitude: (key: String, value: JSONValue, number: Double?)?,
    _ fields: inout RecordFields
  ) -> Coordinate? {
    switch (longitude?.number, latitude?.number) {
    case (let east?, let north?):
      do throws(EventsError) {
        return try Coordinate(latitude: north, longitude: east)
      } catch {
        let part = (-90...90).contains(north) ? longitude : latitude
        fields.report(part?.key ?? "", part?.value, RecordProblem.reason(from: error))
        return nil
      }
    case (_?, nil) where latitude.map({ isBlank($0.value) }) ?? true:
      fields.report(
        latitude?.key ?? "a_latitude", latitude?.value,
        "expected a number, since \(longitude?.key ?? "a_longitude") is given")
      return nil
    case (nil, _?) where longitude.map({ isBlank($0.value) }) ?? true:
      fields.report(
        longitude?.key ?? "a_longitude", longitude?.value,
        "expected a number, since \(latitude?.key ?? "a_latitude") is given")
      return nil
    default:
      return nil
    }
  }

  private static func isBlank(_ value: JSONValue) -> Bool {
    value == .null || value == .string("")
  }

  /// `_id`: a whole number from 0, or a string of digits.
  private static func sourceID(_ value: JSONValue, key: String, _ fields: inout RecordFields)
    -> Int?
  {
    let number: Int64?
    switch value {
    case .number: number = value.int64Value
    case .string(let text): number = text.utf8.allSatisfy { $0 &- 0x30 < 10 } ? Int64(text) : nil
    default: number = nil
    }
    guard let number, number >= 0, number < 1_000_000_000_000_000 else {
      fields.report(key, value, "expected the record's _id, a whole number from 0")
      return nil
    }
    return Int(number)
  }

  /// A text field: a string as is, `null` as empty text, a number as its literal.
  private static func text(_ value: JSONValue, key: String, _ fields: inout RecordFields) -> String
  {
    switch value {
    case .string(let text): return text
    case .null: return ""
    case .number(let literal): return literal
    default:
      fields.report(key, value, "expected a string")
      return ""
    }
  }

  /// `a_pic01_url` → (`a_pic`, 1, URL); `nil` for any other key.
  private static func slot(_ key: String) -> (prefix: String, number: Int, isURL: Bool)? {
    for (prefix, _) in ZooSourceFields.links where key.hasPrefix(prefix) {
      let rest = key.dropFirst(prefix.count)
      let isURL = rest.hasSuffix("_url")
      guard isURL || rest.hasSuffix("_alt") else { return nil }
      let digits = rest.dropLast(4)
      guard !digits.isEmpty, digits.count <= 3, digits.utf8.allSatisfy({ $0 &- 0x30 < 10 }),
        let number = Int(digits), number >= 1
      else { return nil }
      return (prefix, number, isURL)
    }
    return nil
  }
}
