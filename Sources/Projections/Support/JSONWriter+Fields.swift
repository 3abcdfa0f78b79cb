import Events

// Member helpers for the views' and the exports' JSON. (Events has its own, internal to it.)
extension JSONWriter {
  /// Writes `"key":"value"`.
  package mutating func field(_ key: StaticString, _ value: String) {
    self.key(key)
    string(value)
  }

  /// Writes `"key":"value"`, or nothing when `value` is `nil`.
  package mutating func field(_ key: StaticString, _ value: String?) {
    guard let value else { return }
    field(key, value)
  }

  /// Writes `"key":"value"`, or nothing when `value` is empty.
  package mutating func field(_ key: StaticString, unlessEmpty value: String) {
    guard !value.isEmpty else { return }
    field(key, value)
  }

  /// Writes `"key":true` or `"key":false`.
  package mutating func field(_ key: StaticString, _ value: Bool) {
    self.key(key)
    bool(value)
  }

  /// Writes `"key":<number>` in its shortest round-trip form.
  package mutating func field(_ key: StaticString, _ value: Double) {
    self.key(key)
    number(value)
  }

  /// Writes `"key":[...]` of strings.
  package mutating func field(_ key: StaticString, _ values: [String]) {
    self.key(key)
    beginArray()
    for value in values { string(value) }
    endArray()
  }
}
