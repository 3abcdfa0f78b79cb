// The states-and-zip-codes vocabulary: states, each with an ordered list of unique zip codes.
// Stream: `state-<name>` (`state-New York`); zip code events go to their state's stream.

/// A US zip code: 5 digits (`12345`) or ZIP+4 (`12345-6789`).
public struct ZipCode: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The code as written, `12345` or `12345-6789`.
  public let rawValue: String

  /// What a zip code must be, for messages.
  static let expectation = "a zip code of 5 digits or ZIP+4 (12345 or 12345-6789)"

  /// Validates `text` as a zip code. Nothing is trimmed or reformatted.
  /// - Throws: `EventsError.invalidValue` naming the text and, for the usual mistakes (empty,
  ///   spaces, too short or long), the reason: `expected a zip code of 5 digits or ZIP+4 (12345
  ///   or 12345-6789), found '350HH'`.
  public init(_ text: String) throws(EventsError) {
    guard Self.isValid(text) else {
      throw EventsError.invalidValue(expected: Self.expectation, found: Self.describeProblem(text))
    }
    rawValue = text
  }

  /// Whether `text` is 5 digits or 5 digits, `-` and 4 digits; read in place, without a copy.
  private static func isValid(_ text: String) -> Bool {
    func check(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
      func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
      switch utf8.count {
      case 5: return utf8.allSatisfy(isDigit)
      case 10:
        return utf8[5] == 0x2D && utf8[..<5].allSatisfy(isDigit) && utf8[6...].allSatisfy(isDigit)
      default: return false
      }
    }
    if let valid = text.utf8.withContiguousStorageIfAvailable(check) { return valid }
    var copy = text
    return copy.withUTF8(check)
  }

  /// A code whose text the caller has checked as `init(_:)` does.
  init(unchecked text: String) {
    rawValue = text
  }

  /// `text`, quoted, with the reason it is not a zip code when the reason is a common one.
  private static func describeProblem(_ text: String) -> String {
    let quoted = DomainText.quoted(text)
    if text.isEmpty { return quoted }
    if text.unicodeScalars.contains(where: { $0.properties.isWhitespace }) {
      return "\(quoted) (it holds white space; remove it)"
    }
    let allDigits = text.utf8.allSatisfy { $0 &- 0x30 < 10 }
    if allDigits, text.utf8.count < 5 {
      return "\(quoted) (\(text.utf8.count) digits; leading zeros may have been lost)"
    }
    if allDigits, text.utf8.count == 9 {
      return "\(quoted) (9 digits; write ZIP+4 with a hyphen: 12345-6789)"
    }
    return quoted
  }

  /// The first five digits.
  public var fiveDigitCode: Substring { rawValue.prefix(5) }

  public var description: String { rawValue }

  public static func < (lhs: ZipCode, rhs: ZipCode) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension ZipCode: PayloadText {}

/// A state's name (`New York`), which is also its id: its stream is `state-<name>`.
public struct StateName: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The name as written.
  public let rawValue: String

  /// What a state name must be, for messages.
  static let expectation = "a state name of \(DomainText.identifierExpectation)"

  /// Validates `text` as a state name.
  /// - Throws: `EventsError.invalidValue` when it is empty, longer than 200 bytes, holds a
  ///   control character or starts or ends with white space.
  public init(_ text: String) throws(EventsError) {
    if let problem = DomainText.identifierProblem(text) {
      throw EventsError.invalidValue(expected: Self.expectation, found: problem)
    }
    rawValue = text
  }

  /// A name whose text the caller has checked as `init(_:)` does.
  init(unchecked text: String) {
    rawValue = text
  }

  /// The state's stream, `state-<name>`.
  public var streamName: String { EntityKind.state.streamName(for: rawValue) }

  public var description: String { rawValue }
}

extension StateName: PayloadIdentifier {}

// MARK: - Events

/// A state was added (by a user, or imported when `source` is set).
///
/// JSON: `{"state","source"?}`.
public struct StateAdded: KeyedPayload, Hashable {
  public static let eventType = "StateAdded"
  public static let schemaVersion = 1

  /// The state's name.
  public var state: StateName
  /// The file name or URL it was imported from; `nil` when a user added it.
  public var source: String?

  public init(state: StateName, source: String? = nil) {
    self.state = state
    self.source = source
  }

  public var streamName: String { state.streamName }

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case state, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .state: StateName.expectation
      case .source: "a string"
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .state: members.add(state.rawValue)
    case .source: members.add(source)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var state: StateName?
    var source: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .state: state = try cursor.decodeText(StateName.self, field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    self.state = try scope.required(state, Key.state)
    self.source = source
  }
}

/// A zip code was appended to a state's list (by a user, or imported when `source` is set).
///
/// JSON: `{"state","zipCode","source"?}`.
public struct ZipCodeAdded: KeyedPayload, Hashable {
  public static let eventType = "ZipCodeAdded"
  public static let schemaVersion = 1

  /// The state's name.
  public var state: StateName
  /// The zip code, new in the state.
  public var zipCode: ZipCode
  /// The file name or URL it was imported from; `nil` when a user added it.
  public var source: String?

  public init(state: StateName, zipCode: ZipCode, source: String? = nil) {
    self.state = state
    self.zipCode = zipCode
    self.source = source
  }

  public var streamName: String { state.streamName }

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case state, zipCode, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .state: StateName.expectation
      case .zipCode: ZipCode.expectation
      case .source: "a string"
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .state: members.add(state.rawValue)
    case .zipCode: members.add(zipCode.rawValue)
    case .source: members.add(source)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var state: StateName?
    var zipCode: ZipCode?
    var source: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .state: state = try cursor.decodeText(StateName.self, field, scope)
      case .zipCode: zipCode = try cursor.decodeText(ZipCode.self, field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    self.state = try scope.required(state, Key.state)
    self.zipCode = try scope.required(zipCode, Key.zipCode)
    self.source = source
  }
}

/// A zip code of a state was changed into another, keeping its place in the list.
///
/// JSON: `{"state","from","to"}`.
public struct ZipCodeModified: KeyedPayload, Hashable {
  public static let eventType = "ZipCodeModified"
  public static let schemaVersion = 1

  /// The state's name.
  public var state: StateName
  /// The zip code as it was.
  public var from: ZipCode
  /// The zip code as it is now.
  public var to: ZipCode

  public init(state: StateName, from: ZipCode, to: ZipCode) {
    self.state = state
    self.from = from
    self.to = to
  }

  public var streamName: String { state.streamName }

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case state, from, to

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .state: StateName.expectation
      case .from, .to: ZipCode.expectation
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .state: members.add(state.rawValue)
    case .from: members.add(from.rawValue)
    case .to: members.add(to.rawValue)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var state: StateName?
    var from: ZipCode?
    var to: ZipCode?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .state: state = try cursor.decodeText(StateName.self, field, scope)
      case .from: from = try cursor.decodeText(ZipCode.self, field, scope)
      case .to: to = try cursor.decodeText(ZipCode.self, field, scope)
      }
    }
    self.state = try scope.required(state, Key.state)
    self.from = try scope.required(from, Key.from)
    self.to = try scope.required(to, Key.to)
  }
}

/// A zip code was removed from a state's list.
///
/// JSON: `{"state","zipCode"}`.
public struct ZipCodeRemoved: KeyedPayload, Hashable {
  public static let eventType = "ZipCodeRemoved"
  public static let schemaVersion = 1

  /// The state's name.
  public var state: StateName
  /// The zip code removed.
  public var zipCode: ZipCode

  public init(state: StateName, zipCode: ZipCode) {
    self.state = state
    self.zipCode = zipCode
  }

  public var streamName: String { state.streamName }

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case state, zipCode

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .state: StateName.expectation
      case .zipCode: ZipCode.expectation
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .state: members.add(state.rawValue)
    case .zipCode: members.add(zipCode.rawValue)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var state: StateName?
    var zipCode: ZipCode?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .state: state = try cursor.decodeText(StateName.self, field, scope)
      case .zipCode: zipCode = try cursor.decodeText(ZipCode.self, field, scope)
      }
    }
    self.state = try scope.required(state, Key.state)
    self.zipCode = try scope.required(zipCode, Key.zipCode)
  }
}

/// The states domain's events.
public enum USStateEvent: Sendable, Equatable, Hashable {
  case stateAdded(StateAdded)
  case zipCodeAdded(ZipCodeAdded)
  case zipCodeModified(ZipCodeModified)
  case zipCodeRemoved(ZipCodeRemoved)

  /// The stream the event belongs to.
  public var streamName: String { DomainEvent.state(self).streamName }
}
