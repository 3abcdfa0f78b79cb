import Engine
import Events

/// What `replay import` needs of a database: the streams a source's records touch, read at
/// once, and the plan appended as one transaction.
extension MessageStoreWriter {
  /// Every event of each of `streams`, in one query (one snapshot); a stream with no row maps
  /// to `.empty`. What an import decides on; its writes expect these versions, so a writer
  /// that changed a stream in between is a conflict, and the import plans again.
  /// - Throws: `PostgresError`; `EngineError.invalidEvent` for a row holding no line.
  package func events(inStreams streams: [String]) throws -> EventLog.StreamHistories {
    var histories = EventLog.StreamHistories()
    for stream in streams { histories[stream] = .empty }
    guard !streams.isEmpty else { return histories }
    var grouped: [StreamName: [RecordedEvent]] = [:]
    let rows = try connection.query(
      """
      SELECT stream_name, metadata->>'line' FROM message_store.messages
      WHERE stream_name IN (SELECT jsonb_array_elements_text($1::jsonb))
      ORDER BY stream_name, position
      """, [JSONArray.of(streams)]
    ).rows
    for row in rows {
      let stream = row[0] ?? ""
      let event = try recordedEvent(line: row[1], stream: stream)
      grouped[StreamName(stream), default: []].append(event)
    }
    for (stream, events) in grouped {
      var history = EventLog.StreamHistory.empty
      history.events = events
      history.version = events.last?.version ?? 0
      histories[stream.rawValue] = history
    }
    return histories
  }

  /// Appends an import's writes as one transaction (see `append(_:)`).
  /// - Throws: as `append(_:)`; nothing is written when anything is thrown.
  package func importEvents(_ writes: [EventLog.StreamWrite]) throws -> EventLog.ImportSummary {
    let write = try append(writes)
    let sequences = write.appended.first.flatMap { first in
      write.appended.last.map { first.sequence...$0.sequence }
    }
    return EventLog.ImportSummary(
      appendedCount: write.appended.count, duplicateCount: write.duplicateCount,
      sequences: sequences)
  }
}
