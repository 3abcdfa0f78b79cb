import Events

/// Reads states and their zip codes, from a property list or JSON, in either layout:
///
/// - the documented one, `{"States": [{"Name": "California", "ZipCodes": ["90001", ...]}]}`
///   (`states-zipcodes.readme-example.plist`), also as a bare array of state objects;
/// - a dictionary of state name → zip codes, `{"Alabama": ["35004", ...]}`
///   (`states-zipcodes.assessment-states.json`).
///
/// Keys `States`, `Name` and `ZipCodes` match in any letter case. States and zip codes keep
/// their source order (a JSON or XML dictionary's order is its text's). A zip code may be a
/// string or a number (a number that lost its leading zeros is reported as such).
///
/// An invalid zip code leaves out only itself: its state is imported with the others (the
/// problem is listed, and fails an all-or-nothing import). An invalid name, or zip codes that
/// are not an array, leave out the state. A zip code listed twice in a state is imported once.
enum StateSourceParser {
  static func parse(
    _ document: JSONValue, into collector: inout SourceParser.Collector
  ) throws(ImportError) {
    if let states = statesArray(in: document) {
      collector.expect(states.count)
      for (offset, state) in states.enumerated() {
        guard case .object(let object) = state else {
          collector.problems.append(
            RecordProblem(
              kind: .states, index: offset + 1, label: nil, field: "",
              value: RecordProblem.render(state),
              reason: "expected a state object {\"Name\", \"ZipCodes\"}"))
          continue
        }
        let name = member(object, "name")
        let zipCodes = member(object, "zipcodes")
        read(
          (name?.value, zipCodes?.value, name?.key ?? "Name", zipCodes?.key ?? "ZipCodes"),
          index: offset + 1, into: &collector)
      }
    } else if case .object(let object) = document, object.members.contains(where: listsZipCodes) {
      collector.expect(object.members.count)
      for (offset, member) in object.members.enumerated() {
        read(
          (.string(member.key), member.value, "name", "zipCodes"), index: offset + 1,
          into: &collector)
      }
    } else {
      throw collector.unexpectedLayout(
        document,
        expected:
          "{\"States\": [{\"Name\", \"ZipCodes\"}]} or a dictionary of state name → zip codes")
    }
  }

  /// The array of state objects of the documented layout, or `nil` for the dictionary layout.
  private static func statesArray(in document: JSONValue) -> [JSONValue]? {
    if case .array(let elements) = document { return elements }
    guard case .object(let object) = document, let states = member(object, "states"),
      case .array(let elements) = states.value
    else { return nil }
    return elements
  }

  /// Whether a member of the dictionary layout looks like a state: an array of strings or
  /// numbers. A dictionary with none is some other kind of source, reported as a whole.
  private static func listsZipCodes(_ member: JSONObject.Member) -> Bool {
    guard case .array(let elements) = member.value else { return false }
    return elements.allSatisfy {
      if case .string = $0 { return true }
      if case .number = $0 { return true }
      return false
    }
  }

  /// The member whose key is `lowercasedKey` in any letter case.
  private static func member(_ object: JSONObject, _ lowercasedKey: String) -> JSONObject.Member? {
    object.members.first { $0.key.lowercased() == lowercasedKey }
  }

  private static func read(
    _ entry: (name: JSONValue?, zipCodes: JSONValue?, nameField: String, zipField: String),
    index: Int, into collector: inout SourceParser.Collector
  ) {
    defer { collector.advanced(to: index) }
    var fields = RecordFields(kind: .states, index: index, object: JSONObject())
    let name = fields.validated(entry.nameField, entry.name, expected: "a state name (a string)") {
      text throws(EventsError) in try StateName(text)
    }
    var zipCodes: [ZipCode] = []
    if case .array(let elements)? = entry.zipCodes {
      zipCodes.reserveCapacity(elements.count)
      for (position, element) in elements.enumerated() {
        let zipCode = fields.validated(
          "\(entry.zipField)[\(position)]", element, expected: "a zip code (a string)",
          acceptingNumbers: true, rejectsRecord: false
        ) { text throws(EventsError) in try ZipCode(text) }
        if let zipCode { zipCodes.append(zipCode) }
      }
    } else {
      fields.report(entry.zipField, entry.zipCodes, "expected an array of zip codes")
    }
    let label = RecordLabel.quoted("name", entry.name?.stringValue)
    collector.problems += fields.problems(label: label)
    guard !fields.isRejected, let name else { return }
    let repeated = zipCodes.count - Set(zipCodes).count
    if repeated > 0 {
      collector.notes.append(
        "state record \(index) (\(label ?? "")) lists \(repeated) zip code"
          + "\(repeated == 1 ? "" : "s") more than once; each is imported once")
    }
    collector.add(
      .state(.importState(name, zipCodes: zipCodes, source: collector.sourceName)), index: index,
      label: label)
  }
}
