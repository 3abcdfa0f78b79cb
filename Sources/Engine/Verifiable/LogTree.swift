import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// A log's Merkle tree (RFC 9162, see `MerkleTree`), kept in the `<log>.tree` sidecar and
/// caught up from the log by reading only the lines after what the sidecar covers.
///
/// `open` loads the sidecar, checks that it belongs to this log (its file, its first bytes,
/// and the last line it covers, reread where it says), reads the lines appended since, and
/// saves the sidecar again when it grew. A sidecar that is missing, damaged, or from another log or an
/// earlier version of this one (the log was cut or rewritten) is rebuilt from the log; one that
/// cannot be written (a read-only folder) is only not saved.
///
/// - Note: a writer (`EventLog`) keeps the tree in memory once it has it (after its first
///   `treeHead()`, or a write of a tile or more), extends it with the leaf hashes of the lines
///   it writes, and saves the sidecar when that is due (`isSaveDue`); otherwise it is brought
///   up to date lazily, by `head`, `prove` and `verify --note`: a single append costs what it
///   did, and the first `head` after it hashes the lines not yet saved.
///
/// Not for concurrent use: one thread at a time (an `EventLog` keeps its tree under its
/// mutex, which is why it is `@unchecked Sendable`).
package final class LogTree: ProofSource, @unchecked Sendable {
  /// The log.
  public let logPath: String
  /// The tree as the sidecar holds it, caught up to the log's committed end.
  var file: TreeFile
  /// The leaf hashes of the last, partial tile (`size % 256` of them).
  private var partialTile: [[UInt8]]
  /// How many leaves the sidecar on disk covers, as far as this tree knows (0 when it wrote
  /// or adopted none).
  private(set) var savedSize: Int64 = 0
  /// Log bytes read per segment when catching up (see `LogTree+Build`).
  var segmentSize = LogTree.segmentSize
  /// Segments at least this long are hashed on two threads.
  var parallelThreshold = LogTree.parallelThreshold
  /// Full tiles' leaf hashes already read from the log.
  private var tileCache: [Int64: [[UInt8]]] = [:]
  private let reader: LogReader
  /// Why the sidecar was rebuilt rather than extended, if it was (for tests and `--verbose`).
  public private(set) var rebuildReason: String?

  /// The number of events (leaves).
  public var size: Int64 { file.size }
  /// The root of the whole tree.
  public var root: [UInt8] { (try? root(size: file.size)) ?? MerkleTree.emptyRoot }
  /// The last root computed or loaded, and its size.
  private var knownRoot: (size: Int64, root: [UInt8]) = (0, MerkleTree.emptyRoot)

  private init(logPath: String, reader: LogReader) {
    self.logPath = logPath
    self.reader = reader
    self.file = TreeFile()
    self.partialTile = []
  }

  /// Opens the tree of the log `reader` reads, from its sidecar or from scratch, caught up to
  /// the log's committed end; saves the sidecar when it changed (and can be written).
  /// - Parameter usingSidecar: false to rebuild from every line of the log, ignoring the
  ///   sidecar (what `verify --note --rehash` does: that verification trusts no cache).
  /// - Parameter saving: false to leave the sidecar as it is even when the tree grew (what the
  ///   report does: it writes its page and nothing beside the log).
  /// - Throws: `EngineError` when the log cannot be read or a line is corrupt.
  public static func open(_ reader: LogReader, usingSidecar: Bool = true, saving: Bool = true)
    throws -> LogTree
  {
    try open(reader, usingSidecar: usingSidecar, saving: saving, segmentSize: segmentSize)
  }

  /// `open`, reading the log `segmentSize` bytes at a time (tests drive the segment loop with
  /// small ones).
  static func open(
    _ reader: LogReader, usingSidecar: Bool, saving: Bool, segmentSize: Int64,
    parallelThreshold: Int64 = parallelThreshold
  ) throws -> LogTree {
    let tree = LogTree(logPath: reader.path, reader: reader)
    tree.segmentSize = segmentSize
    tree.parallelThreshold = parallelThreshold
    let adopted = usingSidecar ? try tree.loadSidecar() : false
    if !usingSidecar { tree.rebuildReason = "asked to rebuild from the log" }
    let grew = try tree.catchUp()
    if !adopted || grew {
      if saving { tree.save() }
    }
    return tree
  }

  /// The tree a writer keeps from the start of a write on (see `EventLog.treeHead()`): the
  /// sidecar's, when it belongs to this log and covers all but at most `writerCatchUpLimit`
  /// bytes of its committed end (`committedEnd`), caught up; an empty tree for an empty log;
  /// `nil` otherwise (the tree then stays lazy: the next `head` builds or catches it up).
  static func forWriter(_ reader: LogReader, committedEnd: Int64) -> LogTree? {
    let tree = LogTree(logPath: reader.path, reader: reader)
    guard committedEnd > 0 else { return tree }
    guard (try? tree.loadSidecar()) == true, committedEnd - tree.file.end <= writerCatchUpLimit,
      (try? tree.catchUp()) != nil
    else { return nil }
    return tree
  }

  /// How far behind the log a sidecar may be for a writer to adopt it (and read the rest).
  static let writerCatchUpLimit: Int64 = 1 << 20

  /// Loads the sidecar and takes it as the tree so far when it belongs to this log; returns
  /// whether it did (otherwise `rebuildReason` says why not, and the tree is empty).
  private func loadSidecar() throws -> Bool {
    let sidecarPath = TreeFile.path(forLog: reader.path)
    guard FileDescriptor.status(atPath: sidecarPath) != nil else {
      rebuildReason = "there is no sidecar"
      return false
    }
    guard let bytes = try? FileDescriptor.contents(ofFileAt: sidecarPath) else {
      rebuildReason = "the sidecar cannot be read"
      return false
    }
    guard let loaded = TreeFile(bytes: bytes) else {
      rebuildReason = "the sidecar is damaged or not a tree file"
      return false
    }
    if let reason = try adopt(loaded) {
      rebuildReason = reason
      file = TreeFile()
      partialTile = []
      tileCache = [:]
      return false
    }
    rebuildReason = nil
    savedSize = loaded.size
    return true
  }

  /// Takes `loaded` as the tree so far when it belongs to this log; otherwise returns why not.
  private func adopt(_ loaded: TreeFile) throws -> String? {
    let log = try FileDescriptor.open(logPath, .readOnly)
    defer { log.close() }
    let status = try log.status()
    let logSize = status.size
    guard loaded.log == LogFileIdentity(status) else {
      return
        "the sidecar was made from another file (\(loaded.log)), not this log (\(LogFileIdentity(status)))"
    }
    guard loaded.end <= logSize else {
      return "the sidecar covers \(loaded.end) bytes, more than the log's \(logSize)"
    }
    let first = try log.readFully(count: Int(min(loaded.end, TreeFile.firstBytesCount)), at: 0)
    guard SHA256.hash(first) == loaded.firstBytesHash else {
      return "the sidecar belongs to a log with other first bytes"
    }
    guard loaded.size > 0 else {
      file = loaded
      return nil
    }
    // Reread the tile holding the last covered line: its leaves are the partial tile's, and
    // its last line must be the one the sidecar names, ending where it says. (At most 256
    // lines whatever the log's size; each checked as every read checks it, so a pair of them
    // swapped, or one changed, fails here.)
    let tile = (loaded.size - 1) / TreeFile.tileWidth
    var leaves: [[UInt8]] = []
    var lastEnd: Int64 = -1
    try reader.forEachEvent(
      from: LogReader.Position(
        offset: loaded.tileOffsets[Int(tile)], sequence: tile * TreeFile.tileWidth + 1),
      through: loaded.size
    ) { line in
      leaves.append(MerkleTree.leafHash(line.bytes))
      lastEnd = line.offset + Int64(line.length) + 1
      return true
    }
    guard leaves.count == Int(loaded.size - tile * TreeFile.tileWidth), lastEnd == loaded.end,
      leaves.last == loaded.lastLeafHash
    else {
      return "the log's line \(loaded.size) is not the one the sidecar covers"
    }
    file = loaded
    knownRoot = (loaded.size, loaded.root)
    if loaded.size % TreeFile.tileWidth != 0 {
      partialTile = leaves
    } else {
      tileCache[tile] = leaves
    }
    return nil
  }

  /// Reads the lines after what the tree covers and adds them. Returns whether any were.
  func catchUp() throws -> Bool {
    var added = false
    try quickCatchUp { run in
      add(run)
      added = true
    }
    // The rest (a line that failed the quick checks, and what follows) through the general
    // reader, which also says what is wrong with the log's end.
    let start = LogReader.Position(offset: file.end, sequence: file.size + 1)
    var readerAdded = false
    // On a long read the reading thread hashes each line as it decodes it, while this thread
    // combines the hashes into the tree: the two halves of the work run side by side.
    let summary = try reader.forEachEvent(
      from: start, prepare: { line in MerkleTree.leafHash(line.bytes) },
      { line, prepared in
        self.append(
          leafHash: prepared ?? MerkleTree.leafHash(line.bytes), lineOffset: line.offset)
        readerAdded = true
        return true
      })
    if readerAdded { file.end = summary.endOffset }
    added = added || readerAdded
    if added {
      // The hash covers min(end, 4096) bytes: it changes while the log is that short.
      file.firstBytesHash = try firstBytesHash()
    }
    return added
  }

  /// The identity of the log file, recorded in the sidecar when it is saved.
  private func logIdentity() throws -> LogFileIdentity {
    let log = try FileDescriptor.open(logPath, .readOnly)
    defer { log.close() }
    return try LogFileIdentity(of: log)
  }

  func firstBytesHash() throws -> [UInt8] {
    let log = try FileDescriptor.open(logPath, .readOnly)
    defer { log.close() }
    return SHA256.hash(
      try log.readFully(count: Int(min(file.end, TreeFile.firstBytesCount)), at: 0))
  }

  /// Adds one leaf: a new tile starts at every 256th, and each tile (and each 256 hashes of a
  /// level) completed adds its hash to the level above.
  private func append(leafHash: [UInt8], lineOffset: Int64) {
    if file.size % TreeFile.tileWidth == 0 { file.tileOffsets.append(lineOffset) }
    partialTile.append(leafHash)
    file.size += 1
    file.lastLeafHash = leafHash
    guard partialTile.count == Int(TreeFile.tileWidth) else { return }
    let hash = MerkleTree.perfectHash(partialTile[...])
    partialTile.removeAll(keepingCapacity: true)
    addTile(hash)
  }

  /// Adds the lines of `run`, which starts where the tree ends: whole tiles hashed straight
  /// from the run's flat buffer, single leaves where a tile is partial.
  func add(_ run: LeafRun) {
    let width = Int(TreeFile.tileWidth)
    let hashByteCount = MerkleTree.hashByteCount
    var tileStarts = run.tileStarts.makeIterator()
    run.hashes.withUnsafeBytes { hashes in
      var index = 0
      let count = Int(run.count)
      while index < count {
        let startsTile = file.size % TreeFile.tileWidth == 0
        let lineOffset = startsTile ? tileStarts.next() ?? -1 : -1
        if startsTile && count - index >= width {
          file.tileOffsets.append(lineOffset)
          file.size += TreeFile.tileWidth
          addTile(
            MerkleTree.perfectHash(
              flat: UnsafeRawBufferPointer(
                rebasing: hashes[index * hashByteCount..<(index + width) * hashByteCount])))
          index += width
        } else {
          append(
            leafHash: Array(hashes[index * hashByteCount..<(index + 1) * hashByteCount]),
            lineOffset: lineOffset)
          index += 1
        }
      }
      file.lastLeafHash = Array(hashes[(count - 1) * hashByteCount..<count * hashByteCount])
    }
    file.end = run.endOffset
  }

  /// Adds the hash of a tile just completed, and of each 256 hashes of a level it completes.
  private func addTile(_ tileHash: [UInt8]) {
    var hash = tileHash
    var level = 0
    let width = Int(TreeFile.tileWidth)
    while true {
      if file.levels.count == level { file.levels.append([]) }
      file.levels[level].append(contentsOf: hash)
      let count = file.levels[level].count / MerkleTree.hashByteCount
      guard count % width == 0 else { break }
      hash = Self.perfectHash(file.levels[level], from: count - width, count: width)
      level += 1
    }
  }

  /// Saves the sidecar; a failure (a read-only folder, a full disk) leaves the old one, and
  /// the next reader catches up again.
  func save() {
    let path = TreeFile.path(forLog: logPath)
    // Temporary files of writers killed mid-save (`kill -9`) go first.
    SidecarFile.removeLeftovers(of: path, deadOnly: true)
    do {
      file.log = try logIdentity()
      file.root = try root(size: file.size)
      try SidecarFile.write(file.bytes, to: path)
      savedSize = file.size
    } catch {
      return
    }
  }

  // MARK: Hashes

  /// The hash of the perfect subtree of `1 << level` leaves from `start`.
  private func perfect(_ start: Int64, _ level: Int) throws -> [UInt8] {
    if level >= TreeFile.tileHeight {
      let stored = level / TreeFile.tileHeight
      let shift = stored * TreeFile.tileHeight
      let first = Int(start >> Int64(shift))
      return Self.perfectHash(file.levels[stored - 1], from: first, count: 1 << (level - shift))
    }
    let leaves = try tileLeaves(start / TreeFile.tileWidth)
    let first = Int(start % TreeFile.tileWidth)
    return MerkleTree.perfectHash(leaves[first..<first + (1 << level)])
  }

  /// `MerkleTree.perfectHash` of `count` hashes of a stored level, from its `first`th.
  private static func perfectHash(_ level: [UInt8], from first: Int, count: Int) -> [UInt8] {
    let size = MerkleTree.hashByteCount
    return level.withUnsafeBytes { bytes in
      MerkleTree.perfectHash(
        flat: UnsafeRawBufferPointer(rebasing: bytes[first * size..<(first + count) * size]))
    }
  }

  /// The leaf hashes of tile `tile`, read from the log for a full tile.
  private func tileLeaves(_ tile: Int64) throws -> [[UInt8]] {
    if tile == file.size / TreeFile.tileWidth { return partialTile }
    if let cached = tileCache[tile] { return cached }
    var leaves: [[UInt8]] = []
    let first = tile * TreeFile.tileWidth + 1
    try reader.forEachEvent(
      from: LogReader.Position(offset: file.tileOffsets[Int(tile)], sequence: first),
      through: first + TreeFile.tileWidth - 1
    ) { line in
      leaves.append(MerkleTree.leafHash(line.bytes))
      return true
    }
    guard leaves.count == Int(TreeFile.tileWidth) else {
      throw TreeError.mismatch(
        problem: "the log ends inside tile \(tile) that the tree sidecar covers; delete "
          + "'\(TreeFile.path(forLog: logPath))' to rebuild it")
    }
    tileCache[tile] = leaves
    return leaves
  }

  private func requireSize(_ size: Int64, _ what: String) throws {
    try MerkleTree.requireSize(size, what, logSize: file.size)
  }

  /// The root of the tree of the first `size` events.
  public func root(size: Int64) throws -> [UInt8] {
    try requireSize(size, "tree size")
    if size == knownRoot.size { return knownRoot.root }
    let root = try MerkleTree.rangeHash(0, size) { try perfect($0, $1) }
    if size == file.size { knownRoot = (size, root) }
    return root
  }

  /// The leaf hash of event `sequence`.
  public func leafHash(sequence: Int64) throws -> [UInt8] {
    try requireSize(sequence, "seq")
    let index = sequence - 1
    return try tileLeaves(index / TreeFile.tileWidth)[Int(index % TreeFile.tileWidth)]
  }

  /// The inclusion proof of event `sequence` in the tree of the first `size` events.
  public func inclusionPath(sequence: Int64, size: Int64) throws -> [[UInt8]] {
    try requireSize(size, "tree size")
    try MerkleTree.requireInclusion(sequence: sequence, size: size)
    return try MerkleTree.inclusionPath(index: sequence - 1, size: size) { try perfect($0, $1) }
  }

  /// The consistency proof from the tree of `oldSize` events to the tree of `newSize`.
  public func consistencyPath(from oldSize: Int64, to newSize: Int64) throws -> [[UInt8]] {
    try requireSize(newSize, "tree size")
    try MerkleTree.requireConsistency(from: oldSize, to: newSize)
    return try MerkleTree.consistencyPath(from: oldSize, to: newSize) { try perfect($0, $1) }
  }
}
