import Events
import Synchronization

extension Replayer {
  /// What the fold does with one line, as either thread works it out.
  ///
  /// - Note: `@unchecked Sendable` for the favourite toggle's id, which points into the line's
  ///   bytes: it travels with the chunk that holds them and is used before the chunk goes back.
  enum FoldInput: @unchecked Sendable {
    /// A favourite toggle, over half of a typical log: it goes straight to the contacts.
    case favorite(Bool, contactID: UnsafeBufferPointer<UInt8>)
    /// A decoded event, its personal data opened.
    case event(DomainEvent)
    /// A type this build does not fold.
    case nothing
  }

  /// Decodes lines for the fold. Each thread that decodes has its own: the string cache and
  /// the key ring are not shared.
  struct FoldDecoder {
    /// Ids and codes recur all through a log: each short string is made once.
    let strings = StringCache()
    var keys: PersonalData.KeyRing
    let path: String

    init(log: OpenLog) {
      keys = PersonalData.KeyRing(log)
      path = log.path
    }

    init(keys: PersonalData.KeyRing) {
      self.keys = keys
      path = keys.logPath
    }

    /// What the fold does with `line`: the payload decoded (only the text a read model keeps
    /// is made) and sealed personal data opened.
    mutating func input(for line: EventLine) throws -> FoldInput {
      var cursor = line.dataCursor
      if let toggle = EventVocabulary.favoriteToggle(
        type: line.typeBytes, schemaVersion: line.schemaVersion, data: &cursor)
      {
        return .favorite(toggle.isFavorite, contactID: toggle.contactID)
      }
      cursor.strings = Unmanaged.passUnretained(strings)
      cursor.skipsUnshownText = true
      let event: DomainEvent?
      do throws(EventsError) {
        event = try EventVocabulary.decode(
          type: line.typeBytes, schemaVersion: line.schemaVersion, data: &cursor, strict: false)
      } catch {
        throw EngineError.decoding(error, path: path, sequence: line.sequence)
      }
      // Consumed, not copied: the optional is never destroyed as a whole (which costs a trip
      // through the runtime's generic value witnesses).
      guard case .some(var decoded) = consume event else { return .nothing }
      if line.schemaVersion >= 2, PersonalData.carriesPersonalData(type: line.typeBytes) {
        decoded = try PersonalData.open(
          decoded, id: line.id, stream: line.stream, sequence: line.sequence, keys: &keys)
      }
      return .event(decoded)
    }
  }
}

extension Replayer {
  /// The one fold of a log line into the read models, after `FoldDecoder.input(for:)`: what a
  /// replay does with each line it reads and a follower (`LogFollower.follow(folding:…)`) with
  /// each line committed since.
  @inline(__always)
  static func fold(
    _ input: consuming FoldInput, of line: EventLine, at timestamp: Timestamp,
    into models: inout ReadModels
  ) {
    // Consumed, not copied: the model takes the payload.
    switch consume input {
    case .favorite(let isFavorite, let contactID):
      models.contacts.setFavorite(isFavorite, contactID: contactID)
    case .event(let event):
      models.apply(
        event,
        at: EventContext(sequence: line.sequence, streamVersion: line.version, timestamp: timestamp)
      )
    case .nothing:
      break
    }
  }
}

/// A replay's lines decoded on its reading thread, ahead of the fold: the payload read, the
/// key looked up and sealed records opened there, so that the fold's thread only folds.
///
/// **Balance.** Which thread is the slower depends on the log (how many records are sealed, how
/// much text the events carry), so the reading thread decodes a line only while it is at least
/// `lead` bytes ahead of the fold, which it can be only when the fold is the slower one; when
/// the fold catches up (it waits for lines), the reading thread leaves the decoding to it. The
/// two settle where each keeps the other busy. Either thread decodes a line the same way
/// (`FoldDecoder`), so the replay's result does not depend on which one did. A line that fails
/// here is left to the fold, which decodes it again and reports the failure.
final class ReadAhead: @unchecked Sendable {
  private let log: OpenLog
  /// Used on the reading thread only, and made there when it first decodes (a replay too short
  /// for two threads never does). Behind a pointer: a class's stored `var` is checked for
  /// exclusive access at run time on every use (about 150 instructions a line).
  private let decoder: UnsafeMutablePointer<Replayer.FoldDecoder?>
  private let categories: [[UInt8]]?
  /// The offset of the last line the fold received.
  private let foldOffset = Atomic<Int64>(0)
  /// How far ahead of the fold, in bytes, the reading thread must be to decode a line itself.
  private let lead: Int64

  /// - Parameter lead: how far ahead of the fold (bytes) the reading thread decodes lines;
  ///   two of the reader's chunks, so that it decodes while it has chunks waiting for the fold.
  init(log: OpenLog, categories: [[UInt8]]?, lead: Int64) {
    self.log = log
    decoder = .allocate(capacity: 1)
    decoder.initialize(to: nil)
    self.categories = categories
    self.lead = lead
  }

  /// On the reading thread: `line` decoded, if the fold will want it and is far enough behind.
  func prepare(_ line: EventLine) -> Replayer.FoldInput? {
    guard line.offset - foldOffset.load(ordering: .relaxed) >= lead,
      Replayer.belongs(line, to: categories)
    else { return nil }
    if decoder.pointee == nil { decoder.pointee = Replayer.FoldDecoder(log: log) }
    return try? decoder.pointee?.input(for: line)
  }

  deinit {
    decoder.deinitialize(count: 1)
    decoder.deallocate()
  }

  /// On the fold's thread, for every line it receives: where the fold is.
  func reached(_ line: EventLine) {
    foldOffset.store(line.offset, ordering: .relaxed)
  }
}
