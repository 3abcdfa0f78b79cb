import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// `replay repair --from <copy>`: the damaged lines put back from another copy of the log (a
/// backup, a replica), proven by the tree (RFC 9162) instead of cutting everything after the
/// damage.
extension LogRepair {
  /// What a repair from a copy writes, and what proves it.
  public struct Restoration: Sendable, Equatable {
    /// What a plain repair would cut: the damage found, and where the kept log ends.
    public var cut: Cut
    /// The events whose lines come from the copy: from the first damaged write's first seq to
    /// the copy's last event.
    public var fromCopy: ClosedRange<Int64>
    /// This log's own lines after the copy's end that are whole and follow on, kept.
    public var keptAfter: ClosedRange<Int64>?
    /// The events of the repaired log.
    public var size: Int64
    /// The repaired log's tree root at `size`.
    public var root: [UInt8]
    /// What the repaired log was checked against.
    public var witness: Witness
    /// Events this log's damaged part still names (lines that read) that the repaired log
    /// does not hold: damaged or unfinished after the copy's end. Their bytes are in
    /// quarantine with the rest of the cut part.
    public var notRestored: ClosedRange<Int64>?
    /// The lines written after the kept start (the copy's, then this log's own).
    var lines: [UInt8]
  }

  /// What a repaired log's root was found equal to.
  public enum Witness: Sendable, Equatable {
    /// The copy's own tree at its size (the copy's events are a prefix of the repaired log).
    case copy(size: Int64, root: [UInt8])
    /// A signed note at its size (its signature checked by the caller), and the copy's tree.
    case note(Checkpoint, copySize: Int64)
  }

  /// What a repair from `copyPath` would write; `nil` when this log is sound to its last byte.
  /// - Parameter note: a signed tree head of this log, its signature already checked: the
  ///   repaired log must have its root at its size.
  /// - Throws: `TreeError.mismatch` when the copy is not a copy of this log (an intact line
  ///   differs, roots differ) or cannot restore the damage (it ends before it), or the
  ///   repaired log does not match `note`; `TreeError.invalidInput` when `copyPath` is a file
  ///   of this log; `EngineError` when either log cannot be read.
  public func restoration(from copyPath: String, note: Checkpoint? = nil) throws -> Restoration? {
    let file = try OpenLog.named(path).openForReading()
    defer { file.close() }
    return try restoration(file, from: copyPath, note: note)
  }

  /// Writes what `restoration(from:note:)` finds, holding the writers' lock: every byte from
  /// the damaged write's start to the end of the file goes into quarantine first, then the log
  /// is cut there and the restored lines appended and synced. Returns the restoration and the
  /// quarantine file, or `nil` when there was nothing to repair.
  public func applyRestoration(
    from copyPath: String, note: Checkpoint? = nil
  ) throws -> (restoration: Restoration, quarantine: String)? {
    let file = try FileDescriptor.open(path, .appendExisting)
    defer { file.close() }
    guard try file.lockExclusive(waitingUpTo: lockTimeout) else {
      throw EngineError.lockTimeout(path: path, seconds: lockTimeout)
    }
    defer { file.unlock() }
    guard let restoration = try restoration(file, from: copyPath, note: note) else { return nil }
    let start = restoration.cut.range.lowerBound
    // The cut bytes are in quarantine, synced, before the log changes. A crash after the
    // truncation leaves the log at the end of its last whole write (what a plain repair
    // leaves); a torn append of the restored lines is a torn tail, which recovery cuts, and
    // the repair can be run again.
    let saved = try Quarantine.save(
      restoration.cut.range, of: file, logPath: path,
      afterSequence: restoration.fromCopy.lowerBound - 1)
    try file.truncate(to: start)
    try file.synchronize()
    let written = restoration.lines.withUnsafeBytes { bytes in
      Result { () throws(EngineError) in try file.writeAll(bytes) }
    }
    try written.get()
    try file.synchronize()
    try removeCheckpoints(
      at: CheckpointStore(logPath: path).entries().map(\.sequence).filter {
        $0 > restoration.size
      })
    return (restoration, saved)
  }

  private func restoration(
    _ file: FileDescriptor, from copyPath: String, note: Checkpoint?
  ) throws -> Restoration? {
    if let role = LogFiles(logPath: path).role(of: copyPath) {
      throw TreeError.invalidInput(
        problem: "'--from \(copyPath)' is \(role) of '\(path)', not another copy of it: "
          + "name a backup or a replica of the log")
    }
    guard let cut = try examine(file) else { return nil }
    let first = cut.firstChangedSequence
    let copy = LogReader(path: copyPath)
    // Every line of the copy, checked as any read checks it: its leaves give the copy's own
    // root (from its lines alone: nothing is read from or written beside the copy but the
    // copy), and its lines from the damaged write on are the ones put back.
    var copyLeaves: [[UInt8]] = []
    var copied: [[UInt8]] = []
    try copy.forEachEvent { line in
      copyLeaves.append(MerkleTree.leafHash(line.bytes))
      if line.sequence >= first { copied.append(Array(line.bytes)) }
      return true
    }
    guard !copied.isEmpty else {
      throw TreeError.mismatch(
        problem: "the copy '\(copyPath)' ends at seq \(copyLeaves.count), before seq \(first), "
          + "where this log's damage starts: it cannot restore it (use a later copy, or "
          + "'replay repair --apply' to cut)")
    }
    let copyLast = first + Int64(copied.count) - 1
    // This log's own readable lines in the cut part: those the copy also has must be the
    // copy's to the byte; those after the copy's end are kept while they follow on.
    let own = try ownLines(file, from: cut.range.lowerBound)
    var lines: [UInt8] = []
    for bytes in copied {
      lines += bytes
      lines.append(0x0A)
    }
    for line in own where line.sequence >= first && line.sequence <= copyLast {
      let theirs = copied[Int(line.sequence - first)]
      guard line.bytes == theirs else {
        throw TreeError.mismatch(
          problem: "seq \(line.sequence) (byte \(line.offset)) is whole in this log and differs "
            + "from the copy's: '\(copyPath)' is not a copy of this log (another fork, or "
            + "another log)")
      }
    }
    var rules = LogRules.Sequence(first: copyLast + 1)
    var keptLast = copyLast
    var pending: [UInt8] = []
    for line in own where line.sequence > copyLast {
      guard rules.violation(sequence: line.sequence) == nil else { break }
      var broken = false
      rules.violations(sequence: line.sequence, write: line.batch) { _ in broken = true }
      if broken { break }
      rules.accept(sequence: line.sequence, write: line.batch)
      pending += line.bytes
      pending.append(0x0A)
      if rules.openWrite == nil {
        lines += pending
        pending.removeAll()
        keptLast = line.sequence
      }
    }
    // The repaired log's leaves: this log's lines before the damaged write, then `lines`.
    var leaves: [[UInt8]] = []
    leaves.reserveCapacity(Int(keptLast))
    try LogReader(openLog: OpenLog.named(path)).forEachEvent(through: first - 1) { line in
      guard line.sequence < first else { return false }
      leaves.append(MerkleTree.leafHash(line.bytes))
      return true
    }
    guard leaves.count == Int(first - 1) else {
      throw TreeError.mismatch(
        problem: "this log's first \(first - 1) events did not read back whole")
    }
    lines.withUnsafeBytes { bytes in
      var lineStart = 0
      for index in bytes.indices where bytes[index] == 0x0A {
        leaves.append(
          MerkleTree.leafHash(UnsafeRawBufferPointer(rebasing: bytes[lineStart..<index])))
        lineStart = index + 1
      }
    }
    let size = Int64(leaves.count)
    let copyRoot = MerkleTree.root(leafHashes: copyLeaves)
    let restoredAtCopy = MerkleTree.root(leafHashes: Array(leaves[0..<Int(copyLast)]))
    guard restoredAtCopy == copyRoot else {
      throw TreeError.mismatch(
        problem: "this log's first \(first - 1) events with the copy's seq \(first)...\(copyLast) "
          + "have root \(SHA256.hex(restoredAtCopy)), the copy's tree \(SHA256.hex(copyRoot)): "
          + "'\(copyPath)' is not a copy of this log (its first events differ)")
    }
    var witness = Witness.copy(size: copyLast, root: copyRoot)
    if let note {
      guard note.size <= size else {
        throw TreeError.mismatch(
          problem: "the repaired log would hold \(size) events, fewer than the \(note.size) the "
            + "note signs: neither this log nor the copy has events \(size + 1)...\(note.size) "
            + "whole (use a later copy)")
      }
      let atNote = MerkleTree.root(leafHashes: Array(leaves[0..<Int(note.size)]))
      guard atNote == note.root else {
        throw TreeError.mismatch(
          problem: "the repaired log's first \(note.size) events have root "
            + "\(SHA256.hex(atNote)), the note signs \(SHA256.hex(note.root)): the copy does not "
            + "restore the log the note was signed for; nothing was changed")
      }
      witness = .note(note, copySize: copyLast)
    }
    let root = MerkleTree.root(leafHashes: leaves)
    let ownLast = own.map(\.sequence).max() ?? 0
    return Restoration(
      cut: cut, fromCopy: first...copyLast,
      keptAfter: keptLast > copyLast ? (copyLast + 1)...keptLast : nil, size: size, root: root,
      witness: witness, notRestored: ownLast > size ? (size + 1)...ownLast : nil, lines: lines)
  }

  /// A line of this log's damaged part that still reads as a line of the log.
  private struct OwnLine {
    var sequence: Int64
    var batch: ClosedRange<Int64>?
    var offset: Int64
    var bytes: [UInt8]
  }

  /// The lines from `start` to the end of the file that decode, in file order.
  private func ownLines(_ file: FileDescriptor, from start: Int64) throws -> [OwnLine] {
    let size = try file.status().size
    var lines: [OwnLine] = []
    _ = try LineScanner().scan(file, from: start, to: size) { base, length, offset in
      guard
        let line = try? LogLineCodec.decode(base, length: length, lineNumber: 0, offset: offset)
      else { return true }
      lines.append(
        OwnLine(
          sequence: line.sequence, batch: line.batch, offset: offset,
          bytes: Array(UnsafeBufferPointer(start: base, count: length))))
      return true
    }
    return lines
  }
}
