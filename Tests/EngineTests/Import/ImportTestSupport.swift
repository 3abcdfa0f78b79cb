import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

/// The real source files: the repository's copy in `eventlogs/seed-data`, or `$REPLAY_SEED_DATA`.
enum SeedData {
  static var directory: String { RepositoryFiles.seedDataDirectory }

  static func path(_ name: String) -> String { directory + "/" + name }

  static func bytes(_ name: String) throws -> [UInt8] {
    try fileBytes(path(name))
  }

  /// The seed file `name` parsed as `kind`, named as the CLI names it.
  static func parse(
    _ kind: ImportKind, _ name: String,
    options: SourceParser.Options = SourceParser.Options()
  ) throws -> ParsedSource {
    try SourceParser.parse(try bytes(name), kind: kind, sourceName: name, options: options)
  }

  static let contacts = "contacts-v3.json"
  static let locations = "acmeaom-locations.json"
  static let observations = "field-observations.json"
  static let statesPlist = "states-zipcodes.readme-example.plist"
  static let statesJSON = "states-zipcodes.assessment-states.json"
  static let zoo = "taipei-zoo-animals.json"
}

/// Parses `text` as a source of `kind` named `name`.
func parseSource(
  _ kind: ImportKind, _ text: String, name: String = "test.json",
  options: SourceParser.Options = SourceParser.Options()
) throws -> ParsedSource {
  try SourceParser.parse(Array(text.utf8), kind: kind, sourceName: name, options: options)
}

/// Imports with the default metadata, all or nothing.
@discardableResult
func importParsed(
  _ parsed: ParsedSource, into log: EventLog, actor: String? = nil, skipInvalid: Bool = false
) throws -> ImportResult {
  try log.importRecords(
    parsed, metadata: ImportPlanner.metadata(for: parsed, actor: actor, reason: nil),
    skipInvalid: skipInvalid)
}

/// A JSON value with every object's members reversed, to check readers do not depend on
/// member order.
func reversingMembers(_ value: JSONValue) -> JSONValue {
  switch value {
  case .object(let object):
    return .object(
      JSONObject(
        object.members.reversed().map {
          JSONObject.Member(key: $0.key, value: reversingMembers($0.value))
        }))
  case .array(let elements):
    return .array(elements.map(reversingMembers))
  default:
    return value
  }
}

/// `value` encoded compactly, as text.
func jsonText(_ value: JSONValue) -> String {
  String(decoding: value.compactBytes, as: UTF8.self)
}

/// The records' domain commands, unwrapped.
extension ParsedSource {
  var contactRecords: [ContactRecord] {
    records.compactMap {
      if case .contact(.importContact(let record, _)) = $0.command { return record }
      return nil
    }
  }

  var locationRecords: [LocationRecord] {
    records.compactMap {
      if case .location(.importLocation(let record, _)) = $0.command { return record }
      return nil
    }
  }

  var observationRecords: [ObservationRecord] {
    records.compactMap {
      if case .observation(.importObservation(_, let record, _)) = $0.command { return record }
      return nil
    }
  }

  var animalRecords: [AnimalRecord] {
    records.compactMap {
      if case .animal(.importAnimal(let record, _)) = $0.command { return record }
      return nil
    }
  }

  var stateRecords: [(name: String, zipCodes: [String])] {
    records.compactMap {
      if case .state(.importState(let name, let zipCodes, _)) = $0.command {
        return (name.rawValue, zipCodes.map(\.rawValue))
      }
      return nil
    }
  }
}

@Suite struct SeedDataCopyTests {
  /// The repository keeps a copy of the shared seed data so a fresh clone can run everything;
  /// where the shared folder sits next to the repository, the copy must match it byte for byte.
  @Test func theRepositorysCopyMatchesTheSharedSeedData() throws {
    let shared = URL(fileURLWithPath: SeedData.directory)
      .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("shared/seed-data")
    guard FileManager.default.fileExists(atPath: shared.path) else { return }
    let names = try FileManager.default.contentsOfDirectory(atPath: shared.path).sorted()
    #expect(
      try FileManager.default.contentsOfDirectory(atPath: SeedData.directory).sorted() == names)
    for name in names {
      #expect(
        FileManager.default.contents(atPath: shared.appendingPathComponent(name).path)
          == FileManager.default.contents(atPath: SeedData.path(name)), "\(name)")
    }
  }
}
