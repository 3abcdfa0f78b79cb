import Events

extension BinaryReader {
  /// Reads a string and validates it with a domain type's initializer (`ContactID.init`).
  /// - Throws: `invalidCheckpoint` naming the value when validation fails.
  mutating func readIdentifier<Identifier>(
    _ make: (String) throws(EventsError) -> Identifier, _ what: StaticString
  ) throws(ProjectionsError) -> Identifier {
    let start = offset
    let text = try readString(what)
    do throws(EventsError) {
      return try make(text)
    } catch {
      throw invalid(what.description, expected: "a valid value", found: "\(error)", at: start)
    }
  }
}
