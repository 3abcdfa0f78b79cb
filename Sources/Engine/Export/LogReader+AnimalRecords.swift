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
    let imported = catalog.animals.filter { !$0.isInserted }
    guard !imported.isEmpty else { return [:] }
    let histories = try events(inStreams: Set(imported.map(\.id.streamName)))
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
