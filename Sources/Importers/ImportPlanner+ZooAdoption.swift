import Engine
import Events

/// Animals imported under an earlier identity rule, taken up by the records that are them now.
///
/// Logs written between issues 10 and 34 named every imported animal by its Latin name alone
/// (`zoo-tomistoma-schlegelii`), keeping one record per name. The rule since names a record with
/// a coordinate by its place too (docs/FORMAT.md, "An imported animal is its name at its
/// place"), so without this step a re-import of the same page would add each such animal again
/// beside the one the log has.
extension ImportPlanner {
  /// The stream of the animal an earlier rule gave `record`: `animal-zoo-<Latin name>`, when
  /// that is not the record's own stream.
  static func earlierZooStream(of record: SourceRecord) -> String? {
    guard case .animal(.importAnimal(let animal, _)) = record.command,
      let earlier = AnimalID.imported(latinName: animal.nameLatin), earlier != animal.id
    else { return nil }
    return earlier.streamName
  }

  /// `parsed` with each zoo record that is new to the log moved onto the animal an earlier rule
  /// gave it, when the log has one: the stream `animal-zoo-<Latin name>` holds an imported
  /// animal (removed or not) whose last record is at the record's coordinate or has none, and
  /// no earlier record of the page took it up or is that id itself.
  /// - Throws: `EngineError` when a stored event cannot be read.
  static func adoptingEarlierZooAnimals(
    _ parsed: ParsedSource, histories: EventLog.StreamHistories, stored: StoredEvents
  ) throws -> ParsedSource {
    guard parsed.kind == .zoo else { return parsed }
    var taken = Set(parsed.records.map { StreamName($0.command.streamName) })
    var adopted = parsed
    for (position, record) in parsed.records.enumerated() {
      guard case .animal(.importAnimal(var animal, let source)) = record.command,
        let earlierStream = earlierZooStream(of: record),
        !taken.contains(StreamName(earlierStream)),
        histories[record.command.streamName]?.events.isEmpty ?? true,
        let history = histories[earlierStream], !history.events.isEmpty
      else { continue }
      let events = try history.events.compactMap {
        try stored.domainEvent(of: $0, for: ZooDecider.self)
      }
      guard let last = ZooDecider.fold(events).lastImported,
        last.coordinate == nil || last.coordinate == animal.coordinate
      else { continue }
      taken.insert(StreamName(earlierStream))
      animal.id = last.id
      let command = RecordCommand.animal(.importAnimal(animal, source: source))
      adopted.records[position] = SourceRecord(
        index: record.index, label: record.label, command: command,
        digest: ImportIdentity.recordDigest(command))
    }
    return adopted
  }
}
