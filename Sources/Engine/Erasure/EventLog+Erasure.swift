import Events
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// What `eraseContact` did.
public struct ContactErasure: Sendable, Equatable {
  /// The `ContactErased` appended, or `nil` when the contact was already erased.
  public var event: RecordedEvent?
  /// Keys destroyed now (an earlier erasure whose key destruction a crash interrupted is
  /// finished here too).
  public var destroyedKeyCount: Int
  /// Checkpoints (and temporary files of checkpoints) removed: caches the next reads rebuild.
  public var removedCheckpointCount: Int
  /// Checkpoints that could not be removed (a folder not writable): each holds the contact
  /// sealed under its destroyed key, so it shows the contact as erased.
  public var checkpointsNotRemoved: [String] = []
  /// Why nothing was appended, when nothing was.
  public var noChangeReason: String?

  /// What an erasure did, in a file or in a store kept elsewhere.
  package init(
    event: RecordedEvent?, destroyedKeyCount: Int, removedCheckpointCount: Int,
    checkpointsNotRemoved: [String] = [], noChangeReason: String?
  ) {
    self.event = event
    self.destroyedKeyCount = destroyedKeyCount
    self.removedCheckpointCount = removedCheckpointCount
    self.checkpointsNotRemoved = checkpointsNotRemoved
    self.noChangeReason = noChangeReason
  }
}

extension EventLog {
  /// Erases contact `id`'s personal data: appends `ContactErased` (who, when and why in
  /// `metadata`, no personal data), synced, then destroys the contact's keys (the key store
  /// written again without them) and removes the log's checkpoints, which held the contact's
  /// data as the read models keep it. All of it under the log's lock.
  ///
  /// The log's bytes do not change: every digest taken before still verifies. Afterwards the
  /// contact's sealed fields open nowhere, at any point of the log: every read shows it as
  /// erased.
  ///
  /// A crash between the append and the key's destruction is completed by the next writer
  /// (the store holds a mark, `beginErasure`, from before the append); a crash before the
  /// append leaves the contact untouched.
  /// - Throws: `EventsError.unknownEntity` for a contact never added;
  ///   `EngineError.invalidEvent` when the contact's personal data is in the log in clear
  ///   (schema 1 events: erasing it needs a sealed copy, `replay migrate`);
  ///   `EngineError.keyStore` when the key store cannot be read or written.
  public func eraseContact(
    _ id: ContactID, metadata: EventMetadata = EventMetadata()
  ) throws -> ContactErasure {
    try withLockedLog { state in
      guard let file = state.file else {
        throw EventsError.unknownEntity(kind: .contact, id: id.rawValue)
      }
      let stream = id.streamName
      let events = try state.index.lineOffsets(ofStream: stream).map {
        try recordedEvent(in: file, at: $0)
      }
      let inClear = events.filter {
        $0.schemaVersion == 1 && PersonalData.carriesPersonalData(type: $0.type)
      }
      if !inClear.isEmpty {
        let seqs = inClear.prefix(5).map { String($0.sequence) }.joined(separator: ", ")
        throw EngineError.invalidEvent(
          location: path,
          problem:
            "contact \(id)'s personal data is in this log in clear (schema 1 events at seq \(seqs)\(inClear.count > 5 ? ", …" : "")), which no key's destruction can erase; write a sealed copy with 'replay migrate --encrypt-personal-data --output <new log>' and erase there"
        )
      }
      let folded = ContactDecider.fold(
        try events.compactMap { try $0.domainEvent(for: ContactDecider.self, log: openLog) })
      let decision = try ContactDecider.decision(.eraseContact(id: id), folded)
      var store = try openLog.keys.store()
      defer { openLog.keys.update(store) }
      // Copies of the store that killed processes left hold this contact's keys too.
      let leftovers = store.removeLeftoverCopies()
      guard leftovers.isEmpty else {
        throw EngineError.keyStore(
          .unwritable(
            path: store.path,
            reason:
              "copies of it left by killed processes cannot be removed (\(leftovers.joined(separator: ", "))): they hold the keys this erasure must destroy; remove them or make their folder writable"
          ))
      }
      var appended: RecordedEvent?
      if !decision.events.isEmpty {
        // Everything that can refuse the erasure is asked before anything is written: the
        // event's time, and whether the store can be rewritten (its folder takes a new file).
        _ = try eventTime(&state)
        try keyStoreStep { () throws(KeyStoreError) in try store.checkRewritable() }
        try keyStoreStep { () throws(KeyStoreError) in
          try store.beginErasure(contact: id.rawValue)
        }
        let proposed = decision.events.map {
          EventVocabulary.proposedEvent(.contact($0), metadata: metadata).event
        }
        let write = StreamWrite(
          stream: stream, expectedVersion: .exactly(Int64(events.count)), events: proposed)
        let before = state.index.lastSequence
        do {
          appended = try writeEvents(
            [write], chunkSize: Int.max, keepsEvents: true, state: &state
          ).recorded.first
        } catch {
          // Nothing reached the log: the mark goes, so readers show the contact again.
          if state.index.lastSequence == before {
            try? store.abandonErasure(contact: id.rawValue)
          }
          throw error
        }
      }
      let destroyed: Int
      do throws(KeyStoreError) {
        destroyed = try store.erase(contact: id.rawValue)
      } catch {
        guard appended != nil || store.pendingErasures.contains(id.rawValue) else {
          throw EngineError.keyStore(error)
        }
        throw EngineError.keyStore(
          .erasureUnfinished(
            path: store.path, contact: id.rawValue, sequence: appended?.sequence,
            reason: Self.reason(error)))
      }
      scrubQuarantinedKeys(of: id.rawValue)
      let removal = appended != nil || destroyed > 0 ? removeCheckpoints() : CheckpointRemoval()
      return ContactErasure(
        event: appended, destroyedKeyCount: destroyed, removedCheckpointCount: removal.removed,
        checkpointsNotRemoved: removal.notRemoved,
        noChangeReason: appended == nil ? decision.noChangeReason : nil)
    }
  }

  /// What the store said, without the advice its own message adds.
  private static func reason(_ error: KeyStoreError) -> String {
    switch error {
    case .unwritable(_, let reason), .unreadable(_, let reason): reason
    default: error.description
    }
  }

  /// Finishes an erasure a crash interrupted (seen once per writer, on its first lock): keys
  /// destroyed when the log has the contact's `ContactErased`, the mark dropped when it has
  /// not (the erasure never happened).
  func completePendingErasures(_ file: FileDescriptor, _ state: inout State) throws {
    state.erasuresChecked = true
    // Copies of the store a killed rewrite left (no live process writes it: we hold the lock).
    SidecarFile.removeLeftovers(of: KeyStore.path(forLog: path), deadOnly: false)
    guard KeyStore.endsWithPendingErasure(logPath: path) else { return }
    var store = try openLog.keys.store()
    defer { openLog.keys.update(store) }
    for contact in store.pendingErasures {
      let stream = EntityKind.contact.streamName(for: contact)
      var erased = false
      for offset in try state.index.lineOffsets(ofStream: stream).reversed() {
        if try recordedEvent(in: file, at: offset).type == ContactErased.eventType {
          erased = true
          break
        }
      }
      if erased {
        do throws(KeyStoreError) {
          _ = try store.erase(contact: contact)
        } catch {
          throw EngineError.keyStore(
            .erasureUnfinished(
              path: store.path, contact: contact, sequence: nil, reason: Self.reason(error)))
        }
        _ = removeCheckpoints()
        configuration.report(
          "finished erasing contact \(contact): its ContactErased was appended, and a crash stopped the erasure before its key was destroyed"
        )
      } else {
        try keyStoreStep { () throws(KeyStoreError) in try store.abandonErasure(contact: contact) }
        configuration.report(
          "contact \(contact) was not erased: a crash stopped 'contacts erase' before its ContactErased was appended; run it again to erase"
        )
      }
    }
  }

  /// Drops the lines naming `contact` from the key store's torn tails kept in quarantine
  /// (`<log>.quarantine/*-keys-*.cut`): such a line could be a key of the contact, which the
  /// erasure must leave nowhere. Each file is written again (temp file, sync, rename), or
  /// removed when nothing else is left in it.
  private func scrubQuarantinedKeys(of contact: String) {
    let folder = Quarantine.directory(forLog: path)
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
    let needle = Array(#""contact":"\#(contact)""#.utf8)
    for name in names where name.contains("-keys-") && name.hasSuffix(".cut") {
      let file = folder + "/" + name
      guard let bytes = try? FileDescriptor.contents(ofFileAt: file) else { continue }
      let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
      let kept = lines.filter { line in
        !line.indices.contains { line[$0...].starts(with: needle) }
      }
      guard kept.count < lines.count else { continue }
      let rest = Array(kept.joined(separator: [0x0A]))
      if rest.allSatisfy({ $0 == 0 || $0 == 0x0A }) {
        SidecarFile.remove(file)
      } else {
        try? SidecarFile.write(rest, to: file)
      }
    }
  }

  /// What `removeCheckpoints` did.
  struct CheckpointRemoval {
    var removed = 0
    var notRemoved: [String] = []
  }

  /// Removes the log's checkpoints and the temporary files of checkpoints being written (a
  /// cache: the next reads rebuild them), then syncs the folder. Their contacts are sealed
  /// under the contacts' keys, so one that cannot be removed shows an erased contact as erased
  /// all the same; removing them also drops checkpoints older versions wrote in clear.
  private func removeCheckpoints() -> CheckpointRemoval {
    let checkpoints = CheckpointStore(logPath: path)
    var removal = CheckpointRemoval()
    for file in checkpoints.entries().map(\.path) + checkpoints.temporaryFiles() {
      if PathOperations.unlink(file) == 0 || errno == ENOENT {
        removal.removed += 1
      } else {
        removal.notRemoved.append(file)
      }
    }
    if removal.removed > 0 {
      try? SidecarFile.synchronize(directory: checkpoints.directory)
    }
    return removal
  }

  private func keyStoreStep<T>(_ body: () throws(KeyStoreError) -> T) throws -> T {
    do throws(KeyStoreError) {
      return try body()
    } catch {
      throw EngineError.keyStore(error)
    }
  }
}
