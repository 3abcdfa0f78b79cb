import Engine
import Events

/// The deterministic ids of an import's events and its correlation id.
///
/// - Note: Stable forever: changing any of these functions changes the ids a re-run derives,
///   so a re-run racing an older build would no longer be recognised as the same import.
///
/// An event's id is `EventID.derived(fromName:)` of
///
///     replay-import/1 \n <kind> \n <source> \n <stream> \n <version> \n <record digest> \n <position>
///
/// (one line each, no spaces): the import kind (`contacts`), the source name the payloads carry,
/// the stream, the stream version the event will get, the hex SHA-256 of the record's
/// normalised content, and the event's position (from 0) among the events decided for that
/// record. The same import of the same source against the same log therefore derives the same
/// ids, so two identical imports racing each other append once: the second finds its ids in the
/// log with the same content. Equal ids always mean equal content, since the decision depends
/// only on the stream's state at that version and on the record.
package enum ImportIdentity {
  /// The id of the event at `position` among those decided for a record.
  public static func eventID(
    kind: ImportKind, source: String, stream: String, version: Int64, recordDigest: [UInt8],
    position: Int
  ) -> EventID {
    // The name's bytes made in one buffer (a joined `String` of seven cost as much as its hash).
    var name: [UInt8] = []
    name.reserveCapacity(112 + source.utf8.count + stream.utf8.count)
    for part in ["replay-import/1", kind.rawValue, source, stream] {
      name.append(contentsOf: part.utf8)
      name.append(0x0A)
    }
    JSONWriter.appendDecimal(version, to: &name)
    name.append(0x0A)
    SHA256.appendHex(recordDigest, to: &name)
    name.append(0x0A)
    JSONWriter.appendDecimal(Int64(position), to: &name)
    return EventID.derived(fromDigest: SHA256.hash(name))
  }

  /// The correlation id shared by every event of one import: derived from the kind, the source
  /// name and the SHA-256 of the source's bytes, so re-running the same import correlates the
  /// same way.
  public static func correlation(kind: ImportKind, source: String, sourceDigest: [UInt8]) -> String
  {
    let name = ["replay-import-correlation/1", kind.rawValue, source, SHA256.hex(sourceDigest)]
      .joined(separator: "\n")
    return EventID.derived(fromName: name).description
  }

  /// SHA-256 of a record's normalised content: the compact JSON its "added" event would carry
  /// without a source (for a state, its name and zip codes), so the digest depends on what is
  /// imported, not on how the source spelled it.
  public static func recordDigest(_ command: RecordCommand) -> [UInt8] {
    let event: DomainEvent
    switch command {
    case .observation(.importObservation(let id, let record, _)):
      event = .observation(.recorded(ObservationRecorded(id: id, record: record)))
    case .state(.importState(let name, let zipCodes, _)):
      var bytes = Array(name.rawValue.utf8)
      for zipCode in zipCodes {
        bytes.append(0x0A)
        bytes += zipCode.rawValue.utf8
      }
      return SHA256.hash(bytes)
    case .animal(.importAnimal(let record, _)):
      event = .zoo(.imported(AnimalImported(record: record)))
    case .animal(.insertAnimal(let id, let name, let description, let picturePath)):
      event = .zoo(
        .inserted(
          AnimalInserted(id: id, name: name, description: description, picturePath: picturePath)))
    case .location(.importLocation(let record, _)):
      event = .location(.added(LocationAdded(record: record)))
    case .contact(.importContact(let record, _)):
      event = .contact(.added(ContactAdded(record: record)))
    default:
      preconditionFailure("only import commands come from a source")
    }
    return SHA256.hash(EventVocabulary.encode(event).data)
  }
}
