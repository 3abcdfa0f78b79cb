import Events
import Foundation

/// What `eraseContact` did.
public struct ContactErasure: Sendable, Equatable {
  /// The `ContactErased` appended, or `nil` when the contact was already erased.
  public var event: RecordedEvent?
  /// Keys destroyed now (an earlier erasure whose key destruction a crash interrupted is
  /// finished here too).
  public var destroyedKeyCount: Int
  /// Checkpoints removed: they held the contact's personal data as read models keep it.
  public var removedCheckpointCount: Int
  /// Why nothing was appended, when nothing was.
  public var noChangeReason: String?
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
        try events.compactMap { try $0.domainEvent(for: ContactDecider.self, logPath: path) })
      let decision = try ContactDecider.decision(.eraseContact(id: id), folded)
      var store = try KeyStoreCache.store(forLog: path)
      defer { KeyStoreCache.update(store, forLog: path) }
      var appended: RecordedEvent?
      if !decision.events.isEmpty {
        try keyStoreStep { () throws(KeyStoreError) in
          try store.beginErasure(contact: id.rawValue)
        }
        let proposed = decision.events.map {
          EventVocabulary.proposedEvent(.contact($0), metadata: metadata).event
        }
        let write = StreamWrite(
          stream: stream, expectedVersion: .exactly(Int64(events.count)), events: proposed)
        appended = try writeEvents(
          [write], chunkSize: Int.max, keepsEvents: true, state: &state
        ).recorded.first
      }
      let destroyed = try keyStoreStep { () throws(KeyStoreError) in
        try store.erase(contact: id.rawValue)
      }
      let removed = appended != nil || destroyed > 0 ? removeCheckpoints() : 0
      return ContactErasure(
        event: appended, destroyedKeyCount: destroyed, removedCheckpointCount: removed,
        noChangeReason: appended == nil ? decision.noChangeReason : nil)
    }
  }

  /// Finishes an erasure a crash interrupted (seen once per writer, on its first lock): keys
  /// destroyed when the log has the contact's `ContactErased`, the mark dropped when it has
  /// not (the erasure never happened).
  func completePendingErasures(_ file: FileDescriptor, _ state: inout State) throws {
    state.erasuresChecked = true
    guard KeyStore.endsWithPendingErasure(logPath: path) else { return }
    var store = try KeyStoreCache.store(forLog: path)
    defer { KeyStoreCache.update(store, forLog: path) }
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
        try keyStoreStep { () throws(KeyStoreError) in _ = try store.erase(contact: contact) }
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

  /// Removes the log's checkpoints (a cache: the next reads rebuild them); returns how many.
  private func removeCheckpoints() -> Int {
    let checkpoints = CheckpointStore(logPath: path)
    var removed = 0
    for entry in checkpoints.entries() {
      if (try? FileManager.default.removeItem(atPath: entry.path)) != nil { removed += 1 }
    }
    return removed
  }

  private func keyStoreStep<T>(_ body: () throws(KeyStoreError) -> T) throws -> T {
    do throws(KeyStoreError) {
      return try body()
    } catch {
      throw EngineError.keyStore(error)
    }
  }
}
