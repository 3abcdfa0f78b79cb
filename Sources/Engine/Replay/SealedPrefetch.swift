import Events
import Synchronization

/// Sealed contact payloads opened on a replay's reading thread, ahead of the fold: the key
/// looked up and the record decrypted there (`PersonalData.unseal`), so that the fold's thread,
/// the slower of the two, only reads the opened schema 1 form (`PersonalData.complete`). A line
/// that fails here is left to the fold, which opens it again and reports the failure.
final class SealedPrefetch: @unchecked Sendable {
  /// Used on the reading thread only.
  private var keys: PersonalData.KeyRing
  private let categories: [[UInt8]]?
  /// Opened events by seq, from the reading thread to the fold's.
  private let ready = Mutex<[Int64: (DomainEvent, PersonalData.Unsealed)]>([:])

  init(logPath: String, categories: [[UInt8]]?) {
    keys = PersonalData.KeyRing(logPath: logPath)
    self.categories = categories
  }

  /// On the reading thread: opens `line` if it is a sealed contact event the fold will want.
  func prepare(_ line: EventLine) {
    guard line.schemaVersion >= 2, PersonalData.carriesPersonalData(type: line.typeBytes),
      Replayer.belongs(line, to: categories)
    else { return }
    var cursor = line.dataCursor
    let decoded: DomainEvent?
    do throws(EventsError) {
      decoded = try EventVocabulary.decode(
        type: line.typeBytes, schemaVersion: line.schemaVersion, data: &cursor, strict: false)
    } catch {
      return
    }
    guard let decoded,
      let unsealed = try? PersonalData.unseal(
        decoded, id: line.id, stream: line.stream, sequence: line.sequence, keys: &keys)
    else { return }
    ready.withLock { $0[line.sequence] = (decoded, unsealed) }
  }

  /// On the fold's thread: `line`'s event as `prepare` left it, if it did.
  func take(_ line: EventLine) -> (DomainEvent, PersonalData.Unsealed)? {
    guard line.schemaVersion >= 2, PersonalData.carriesPersonalData(type: line.typeBytes) else {
      return nil
    }
    return ready.withLock { $0.removeValue(forKey: line.sequence) }
  }
}
