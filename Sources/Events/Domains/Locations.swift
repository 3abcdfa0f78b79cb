// The locations vocabulary: named points, added, renamed, moved and removed.
// Stream: `location-<id>`, the id being the GeoJSON feature's `id`.

/// A point on Earth in degrees (WGS 84): latitude in [-90, 90], longitude in [-180, 180], both
/// finite. Poles and the antimeridian (±180) are valid.
///
/// JSON: `{"latitude","longitude"}` (not GeoJSON's `[longitude, latitude]` order: named keys
/// leave no doubt).
public struct Coordinate: Hashable, Sendable, CustomStringConvertible {
  /// Degrees north of the equator, -90 through 90.
  public let latitude: Double
  /// Degrees east of Greenwich, -180 through 180.
  public let longitude: Double

  static let latitudeExpectation = "a latitude in [-90, 90]"
  static let longitudeExpectation = "a longitude in [-180, 180]"
  static let objectExpectation = "an object {\"latitude\", \"longitude\"}"

  /// Validates a point.
  /// - Throws: `EventsError.invalidValue` naming the value and its range, e.g. `expected a
  ///   latitude in [-90, 90], found -90.0001`; NaN and infinities are found as `nan`, `inf`.
  public init(latitude: Double, longitude: Double) throws(EventsError) {
    if let problem = Self.latitudeProblem(latitude) {
      throw EventsError.invalidValue(expected: Self.latitudeExpectation, found: problem)
    }
    if let problem = Self.longitudeProblem(longitude) {
      throw EventsError.invalidValue(expected: Self.longitudeExpectation, found: problem)
    }
    self.latitude = latitude
    self.longitude = longitude
  }

  static func latitudeProblem(_ value: Double) -> String? {
    value.isFinite && (-90...90).contains(value) ? nil : "\(value)"
  }

  static func longitudeProblem(_ value: Double) -> String? {
    value.isFinite && (-180...180).contains(value) ? nil : "\(value)"
  }

  /// `latitude, longitude`.
  public var description: String { "\(latitude), \(longitude)" }
}

extension Coordinate: PayloadComponent {
  /// The object's keys.
  enum Key: String, PayloadKey {
    case latitude, longitude

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .latitude: Coordinate.latitudeExpectation
      case .longitude: Coordinate.longitudeExpectation
      }
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var latitude: Double?
    var longitude: Double?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      let value = try cursor.decodeDouble(field, scope)
      switch key {
      case .latitude:
        if let problem = Self.latitudeProblem(value) { throw scope.invalid(field, found: problem) }
        latitude = value
      case .longitude:
        if let problem = Self.longitudeProblem(value) { throw scope.invalid(field, found: problem) }
        longitude = value
      }
    }
    self.latitude = try scope.required(latitude, Key.latitude)
    self.longitude = try scope.required(longitude, Key.longitude)
  }

  // Not inlined into the encoder of the payload holding it: inlined, the two closures broke
  // the optimizer (an ownership error in `ContactAdded.encode`, Swift 6.0 release builds).
  @inline(never)
  func encode(to writer: inout JSONWriter) {
    writer.object(Key.self) { key, members in
      switch key {
      case .latitude: members.add(latitude)
      case .longitude: members.add(longitude)
      }
    }
  }
}

/// A location's id: the GeoJSON feature's `id` (a UUID in the source, but any text that makes a
/// valid stream name is accepted).
public struct LocationID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The id as written.
  public let rawValue: String

  static let expectation = "a location id of \(DomainText.identifierExpectation)"

  /// Validates `text` as a location id.
  /// - Throws: `EventsError.invalidValue` when it is empty, longer than 200 bytes, holds a
  ///   control character or starts or ends with white space.
  public init(_ text: String) throws(EventsError) {
    if let problem = DomainText.identifierProblem(text) {
      throw EventsError.invalidValue(expected: Self.expectation, found: problem)
    }
    rawValue = text
  }

  /// An id whose text the caller has checked as `init(_:)` does.
  init(unchecked text: String) {
    rawValue = text
  }

  /// The location's stream, `location-<id>`.
  public var streamName: String { EntityKind.location.streamName(for: rawValue) }

  public var description: String { rawValue }
}

extension LocationID: PayloadIdentifier {}

/// A location as the source (a GeoJSON `Point` feature) holds it.
public struct LocationRecord: Sendable, Equatable, Hashable {
  /// The feature's `id`.
  public var id: LocationID
  /// `properties.name`; never empty or blank once added.
  public var name: String
  /// Where it is.
  public var coordinate: Coordinate

  public init(id: LocationID, name: String, coordinate: Coordinate) {
    self.id = id
    self.name = name
    self.coordinate = coordinate
  }

  static let nameExpectation = "a name that is not empty or only white space"
}

// MARK: - Events

/// A location was added (by a user, or imported when `source` is set).
///
/// JSON: `{"id","name","coordinate":{"latitude","longitude"},"source"?}`.
public struct LocationAdded: KeyedPayload, Hashable {
  public static let eventType = "LocationAdded"
  public static let schemaVersion = 1

  /// The location.
  public var record: LocationRecord
  /// The file name or URL it was imported from; `nil` when a user added it.
  public var source: String?

  public init(record: LocationRecord, source: String? = nil) {
    self.record = record
    self.source = source
  }

  public var streamName: String { record.id.streamName }

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case id, name, coordinate, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: LocationID.expectation
      case .name: LocationRecord.nameExpectation
      case .coordinate: Coordinate.objectExpectation
      case .source: "a string"
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .id: members.add(record.id.rawValue)
    case .name: members.add(record.name)
    case .coordinate: members.add(record.coordinate)
    case .source: members.add(source)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var id: LocationID?
    var name: String?
    var coordinate: Coordinate?
    var source: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(LocationID.self, field, scope)
      case .name: name = try cursor.decodeTitle(field, scope)
      case .coordinate: coordinate = try cursor.decodeComponent(Coordinate.self, field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    record = LocationRecord(
      id: try scope.required(id, Key.id), name: try scope.required(name, Key.name),
      coordinate: try scope.required(coordinate, Key.coordinate))
    self.source = source
  }
}

/// A location got a new name.
///
/// JSON: `{"id","name","source"?}`.
public struct LocationRenamed: KeyedPayload, Hashable {
  public static let eventType = "LocationRenamed"
  public static let schemaVersion = 1

  /// The location's id.
  public var id: LocationID
  /// The new name.
  public var name: String
  /// The file name or URL whose new version brought the change; `nil` for a user's rename.
  public var source: String?

  public init(id: LocationID, name: String, source: String? = nil) {
    self.id = id
    self.name = name
    self.source = source
  }

  public var streamName: String { id.streamName }

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case id, name, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: LocationID.expectation
      case .name: LocationRecord.nameExpectation
      case .source: "a string"
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .id: members.add(id.rawValue)
    case .name: members.add(name)
    case .source: members.add(source)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var id: LocationID?
    var name: String?
    var source: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(LocationID.self, field, scope)
      case .name: name = try cursor.decodeTitle(field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    self.id = try scope.required(id, Key.id)
    self.name = try scope.required(name, Key.name)
    self.source = source
  }
}

/// A location moved to a new point.
///
/// JSON: `{"id","coordinate":{"latitude","longitude"},"source"?}`.
public struct LocationMoved: KeyedPayload, Hashable {
  public static let eventType = "LocationMoved"
  public static let schemaVersion = 1

  /// The location's id.
  public var id: LocationID
  /// Where it is now.
  public var coordinate: Coordinate
  /// The file name or URL whose new version brought the change; `nil` for a user's move.
  public var source: String?

  public init(id: LocationID, coordinate: Coordinate, source: String? = nil) {
    self.id = id
    self.coordinate = coordinate
    self.source = source
  }

  public var streamName: String { id.streamName }

  /// The payload's keys.
  enum Key: String, PayloadKey {
    case id, coordinate, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: LocationID.expectation
      case .coordinate: Coordinate.objectExpectation
      case .source: "a string"
      }
    }
  }

  func encode(_ key: Key, to members: inout PayloadMembers) {
    switch key {
    case .id: members.add(id.rawValue)
    case .coordinate: members.add(coordinate)
    case .source: members.add(source)
    }
  }

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var id: LocationID?
    var coordinate: Coordinate?
    var source: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(LocationID.self, field, scope)
      case .coordinate: coordinate = try cursor.decodeComponent(Coordinate.self, field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    self.id = try scope.required(id, Key.id)
    self.coordinate = try scope.required(coordinate, Key.coordinate)
    self.source = source
  }
}

/// A location was removed.
///
/// JSON: `{"id"}`.
public struct LocationRemoved: IDPayload, Hashable {
  public static let eventType = "LocationRemoved"
  public static let schemaVersion = 1

  /// The location's id.
  public var id: LocationID

  public init(id: LocationID) {
    self.id = id
  }

  public var streamName: String { id.streamName }

  static let layout = LocationID.idPayloadLayout()
}

/// The locations domain's events.
public enum LocationEvent: Sendable, Equatable, Hashable {
  case added(LocationAdded)
  case renamed(LocationRenamed)
  case moved(LocationMoved)
  case removed(LocationRemoved)

  /// The stream the event belongs to.
  public var streamName: String { DomainEvent.location(self).streamName }
}
