import Events
import Projections

extension LogReader {
  /// Each of the imported animals `catalog` holds, with its source record as last imported at
  /// or before seq `last`: what an animals export writes back (the catalogue keeps only what
  /// its screen shows). One pass over the log; an animal without such a record is absent.
  /// - Throws: `EngineError` for a missing or damaged log or a payload that cannot be decoded.
  public func animalRecords(
    for catalog: AnimalCatalog, through last: Int64
  ) throws -> [AnimalID: AnimalRecord] {
    try Self.animalRecords(for: catalog, through: last, logName: path) {
      try events(inStreams: $0.map(\.rawValue))
    }
  }

  /// `animalRecords(for:through:)` from lines kept somewhere other than a file (a database),
  /// which `lines` hands out in seq order: one pass over them.
  /// - Throws: what `lines` throws, and `EngineError` for a payload that cannot be decoded.
  package static func animalRecords(
    for catalog: AnimalCatalog, through last: Int64, logName: String, lines: LineSource
  ) throws -> [AnimalID: AnimalRecord] {
    try animalRecords(for: catalog, through: last, logName: logName) {
      try events(inStreams: $0, lines: lines)
    }
  }

  /// `animalRecords(for:through:)`, with `events` giving the animals' streams' events.
  private static func animalRecords(
    for catalog: AnimalCatalog, through last: Int64, logName path: String,
    events: (Set<StreamName>) throws -> EventLog.StreamHistories
  ) throws -> [AnimalID: AnimalRecord] {
    let imported = catalog.animals.filter { !$0.isInserted }
    guard !imported.isEmpty else { return [:] }
    let histories = try events(Set(imported.map { StreamName($0.id.streamName) }))
    var records: [AnimalID: AnimalRecord] = [:]
    for animal in imported {
      let events = histories[animal.id.streamName]?.events ?? []
      guard
        let event = events.last(where: {
          $0.sequence <= last && $0.type == AnimalImported.eventType
        })
      else { continue }
      let decoded: DomainEvent?
      do throws(EventsError) {
        decoded = try EventVocabulary.decode(event)
      } catch {
        throw EngineError.decoding(error, path: path, sequence: event.sequence)
      }
      if case .zoo(.imported(let payload))? = decoded { records[animal.id] = payload.record }
    }
    return records
  }
}
