/// Upcasters for a library user's own event types: functions that turn a payload written at
/// one schema version into the next version's, registered per type and version, applied in
/// a chain (v1 → v2 → v3) when events are read, so that code reading the events sees only the
/// newest shape while the log keeps every line as it was written.
///
/// The engine's own types read their older versions in their decoders (`ContactAdded` at 1 is
/// the plaintext form, at 2 sealed; `AnimalImported` at 1 names the animal `zoo-<_id>`); this
/// registry is for the events an app appends under its own type names (`replay append`,
/// `EventLog.append`), which replay leaves alone and the app reads as `RecordedEvent`s.
///
/// ```swift
/// var upcasters = PayloadUpcasters()
/// try upcasters.register(type: "NoteAdded", from: 1) { payload in
///   var object = payload.objectValue ?? JSONObject()
///   object["text"] = object["body"]          // v2 renamed body to text
///   object["body"] = nil
///   return .object(object)
/// }
/// let store = try await EventStore(path: "notes.jsonl", upcasters: upcasters)
/// let (events, _) = try await store.recordedEvents(inStream: "note-1")   // all at v2
/// ```
public struct PayloadUpcasters: Sendable {
  /// Turns one version's payload into the next version's.
  public typealias Upcast = @Sendable (JSONValue) throws -> JSONValue

  private var steps: [String: [Int: Upcast]] = [:]

  public init() {}

  /// Registers the step from version `version` of `type` to `version + 1`.
  /// - Throws: `UpcastError.invalidRegistration` for a type of the engine's own vocabulary (its
  ///   decoders read its versions), a version below 1, or a step already registered.
  public mutating func register(
    type: String, from version: Int, _ upcast: @escaping Upcast
  ) throws(UpcastError) {
    if EventVocabulary.newestSchemaVersions[type] != nil {
      throw .invalidRegistration(
        type: type, problem: "it is one of the engine's own types, whose decoders read its versions"
      )
    }
    guard version >= 1 else {
      throw .invalidRegistration(type: type, problem: "version \(version) is not ≥ 1")
    }
    guard steps[type]?[version] == nil else {
      throw .invalidRegistration(
        type: type, problem: "a step from version \(version) is registered already")
    }
    steps[type, default: [:]][version] = upcast
  }

  /// Whether no upcaster is registered.
  public var isEmpty: Bool { steps.isEmpty }

  /// The newest version of `type` the registered steps reach, or `nil` when it has none.
  public func newestVersion(of type: String) -> Int? {
    steps[type]?.keys.max().map { $0 + 1 }
  }

  /// `event` with its payload brought, step by step, to the newest version the registered
  /// steps reach from its version; unchanged when none applies.
  /// - Throws: `UpcastError.malformedPayload` when the payload is not JSON, `.stepFailed` when
  ///   a step throws, `.gap` when the chain stops before the newest version.
  public func upcast(_ event: RecordedEvent) throws(UpcastError) -> RecordedEvent {
    guard let chain = steps[event.type], chain[event.schemaVersion] != nil else { return event }
    var payload: JSONValue
    do throws(JSONSyntaxError) {
      payload = try JSONValue.parse(event.data)
    } catch {
      throw .malformedPayload(type: event.type, version: event.schemaVersion, syntax: error)
    }
    var version = event.schemaVersion
    while let step = chain[version] {
      do {
        payload = try step(payload)
      } catch {
        throw .stepFailed(type: event.type, from: version, reason: String(describing: error))
      }
      version += 1
    }
    if let newest = newestVersion(of: event.type), version < newest {
      throw .gap(type: event.type, from: version, newest: newest)
    }
    var upcast = event
    upcast.schemaVersion = version
    upcast.data = payload.compactBytes
    return upcast
  }
}

/// What can go wrong registering or applying upcasters.
public enum UpcastError: Error, Sendable, Equatable, CustomStringConvertible {
  case invalidRegistration(type: String, problem: String)
  case malformedPayload(type: String, version: Int, syntax: JSONSyntaxError)
  case stepFailed(type: String, from: Int, reason: String)
  case gap(type: String, from: Int, newest: Int)

  public var description: String {
    switch self {
    case .invalidRegistration(let type, let problem):
      "cannot register an upcaster for '\(type)': \(problem)"
    case .malformedPayload(let type, let version, let syntax):
      "'\(type)' at schema \(version): the payload is not JSON (\(syntax))"
    case .stepFailed(let type, let from, let reason):
      "'\(type)': the upcaster from schema \(from) to \(from + 1) failed: \(reason)"
    case .gap(let type, let from, let newest):
      "'\(type)': no upcaster from schema \(from), so the payload stops short of schema \(newest); register one"
    }
  }
}
