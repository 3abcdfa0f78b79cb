import Events
import Synchronization

/// Sealed contact payloads opened on a replay's reading thread, ahead of the fold: the key
/// looked up and the record decrypted there (`PersonalData.unseal`), so that the fold's thread
/// only reads the opened schema 1 form (`PersonalData.complete`). A line that fails here is left
/// to the fold, which opens it again and reports the failure.
///
/// **Balance.** Which thread is the slower depends on the log (how many records are sealed, how
/// much text the others carry), so the reading thread opens a line only while it is at least
/// `lead` bytes ahead of the fold, which it can be only when the fold is the slower one; when
/// the fold catches up (it waits for lines), the reading thread leaves the opening to it. The
/// two settle where each keeps the other busy. Either thread opens a record the same way, so
/// the replay's result does not depend on which one did.
final class SealedPrefetch: @unchecked Sendable {
  /// Used on the reading thread only.
  private var keys: PersonalData.KeyRing
  private let categories: [[UInt8]]?
  /// Opened events by seq, from the reading thread to the fold's.
  private let ready = Mutex<[Int64: (DomainEvent, PersonalData.Unsealed)]>([:])
  /// The offset of the last line the fold received.
  private let foldOffset = Atomic<Int64>(0)
  /// How far ahead of the fold, in bytes, the reading thread must be to open a line itself.
  private let lead: Int64

  /// - Parameter lead: how far ahead of the fold (bytes) the reading thread opens lines; two
  ///   of the reader's chunks, so that it opens while it has chunks waiting for the fold.
  init(logPath: String, categories: [[UInt8]]?, lead: Int64) {
    keys = PersonalData.KeyRing(logPath: logPath)
    self.categories = categories
    self.lead = lead
  }

  /// On the reading thread: opens `line` if it is a sealed contact event the fold will want,
  /// and the fold is far enough behind.
  func prepare(_ line: EventLine) {
    guard line.schemaVersion >= 2, PersonalData.carriesPersonalData(type: line.typeBytes),
      line.offset - foldOffset.load(ordering: .relaxed) >= lead,
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

  /// On the fold's thread, for every line it receives: where the fold is.
  func reached(_ line: EventLine) {
    foldOffset.store(line.offset, ordering: .relaxed)
  }

  /// On the fold's thread: `line`'s event as `prepare` left it, if it did.
  func take(_ line: EventLine) -> (DomainEvent, PersonalData.Unsealed)? {
    guard line.schemaVersion >= 2, PersonalData.carriesPersonalData(type: line.typeBytes) else {
      return nil
    }
    return ready.withLock { $0.removeValue(forKey: line.sequence) }
  }
}
