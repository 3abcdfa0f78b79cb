import Events
import Importers

/// The real Taipei Zoo records the generator makes its imported animals from: the text of
/// `eventlogs/seed-data/taipei-zoo-animals.json`, compiled in from that file, parsed
/// with the zoo importer. Each generated `AnimalImported` is one of these records under a new
/// `_id`, so its payload carries real Chinese text of 1-3 KB.
enum ZooCorpus {
  /// The name generated imports give as their `source`.
  static let sourceName = "taipei-zoo-animals.json"

  /// The records, in source order.
  static let records: [AnimalRecord] = {
    let parsed = try? SourceParser.parse(json, kind: .zoo, sourceName: sourceName)
    let records = (parsed?.records ?? []).compactMap { record -> AnimalRecord? in
      guard case .animal(.importAnimal(let animal, _)) = record.command else { return nil }
      return animal
    }
    precondition(!records.isEmpty, "the embedded Taipei Zoo records must parse")
    return records
  }()

  /// The source file's bytes: `eventlogs/seed-data/taipei-zoo-animals.json`, compiled in
  /// (Package.swift embeds it through the link in Sources/Generator/Resources).
  static var json: [UInt8] { PackageResources.taipei_zoo_animals_json }
}
