import Events

/// One valid record of a source, as the command that imports it.
package struct SourceRecord: Sendable, Equatable {
  /// The record's position in the source, from 1.
  public var index: Int
  /// What identifies it, for messages (`id '13', name 'Miss Piggy'`).
  public var label: String?
  /// The domain's import command for it.
  public var command: RecordCommand
  /// SHA-256 of the record's normalised content (see `ImportIdentity.recordDigest`): records
  /// that import the same way have the same digest, whatever the source's layout or key order.
  public var digest: [UInt8]

  /// `contact record 3 (id '1')`, for messages.
  public func name(_ kind: ImportKind) -> String {
    "\(kind.recordNoun) record \(index)" + (label.map { " (\($0))" } ?? "")
  }
}

/// A source parsed into records: the valid ones as import commands, and every problem found.
package struct ParsedSource: Sendable, Equatable {
  /// The kind of source.
  public var kind: ImportKind
  /// The name events carry in their `source` field: the file's last path component, or the URL.
  public var sourceName: String
  /// SHA-256 of the source's bytes (the import's correlation id derives from it).
  public var sourceDigest: [UInt8]
  /// How many records the source holds, valid or not.
  public var recordCount: Int
  /// The records to import, in source order. A record with a problem that does not reject it
  /// (an invalid zip code of a state) is here without the bad entry.
  public var records: [SourceRecord]
  /// Every problem, in source order.
  public var problems: [RecordProblem]
  /// Remarks about the source that are not problems (it is one page of a larger result, a
  /// record repeats an earlier one's id), one line each.
  public var notes: [String] = []

  /// How many records have at least one problem.
  public var invalidRecordCount: Int {
    Set(problems.map(\.index)).count
  }

  /// How many records are left out entirely.
  public var rejectedRecordCount: Int {
    Set(problems.filter(\.rejectsRecord).map(\.index)).count
  }

  /// Checks that nothing is wrong, for an all-or-nothing import.
  /// - Throws: `ImportError.invalidRecords` listing every problem.
  public func requireValid() throws(ImportError) {
    guard problems.isEmpty else {
      throw ImportError.invalidRecords(
        kind: kind, source: sourceName, recordCount: recordCount, problems: problems)
    }
  }
}
