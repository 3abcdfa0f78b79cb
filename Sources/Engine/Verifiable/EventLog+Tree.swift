import Events

/// The log's Merkle tree as a writer keeps it: in memory from its first `treeHead()` or
/// large write on, extended by each write with the leaf hashes of the lines it wrote, and
/// saved to `<log>.tree` when a tile of 256 leaves completes (`LogTree.isSaveDue`).
extension EventLog {
  /// A tree head: the size and root of the log's RFC 9162 Merkle tree (docs/FORMAT.md, "The
  /// Merkle tree").
  public struct TreeHead: Sendable, Equatable {
    /// The number of events.
    public var size: Int64
    /// The root hash (32 bytes).
    public var root: [UInt8]
  }

  /// The tree head of the log's committed events, as of now.
  ///
  /// The first call builds the tree from the `<log>.tree` sidecar (caught up with the lines
  /// appended since, and saved) or from the log; this writer then keeps it in memory and
  /// extends it with every write, so later calls read no file unless another process
  /// appended (whose lines are then read and hashed).
  /// - Throws: `EngineError.lockTimeout`, `.io`, `.corruptLine` when a line cannot be read.
  public func treeHead() throws -> TreeHead {
    try withLockedLog(creating: false) { state in
      guard state.index.lastSequence > 0 else {
        return TreeHead(size: 0, root: MerkleTree.emptyRoot)
      }
      let tree: LogTree
      if let kept = state.tree {
        tree = kept
        if tree.size != state.index.lastSequence {
          do {
            _ = try tree.catchUp()
          } catch {
            state.tree = nil
            throw error
          }
        }
      } else {
        tree = try LogTree.open(reader)
        state.tree = tree
      }
      guard tree.size == state.index.lastSequence else {
        state.tree = nil
        throw EngineError.corruptLine(
          path: path, line: Int(tree.size + 1), offset: tree.file.end,
          problem:
            "the Merkle tree ends at seq \(tree.size), the log at \(state.index.lastSequence)")
      }
      return TreeHead(size: tree.size, root: try tree.root(size: tree.size))
    }
  }

  /// Where a write's leaf hashes are gathered: when this writer keeps the tree, or the write
  /// is large enough (a tile or more) to start keeping it from the sidecar; `nil` otherwise
  /// (the tree stays lazy, and a single append costs what it did).
  func treeLeaves(forWriteOf newCount: Int, state: inout State) -> LogTree.LeafRun? {
    if state.tree == nil, newCount >= Int(TreeFile.tileWidth) {
      state.tree = LogTree.forWriter(reader, committedEnd: state.index.committedEnd)
    }
    guard state.tree != nil else { return nil }
    return LogTree.LeafRun(
      startingAt: state.index.committedEnd, sequence: state.index.lastSequence + 1)
  }

  /// Takes a committed write's leaves into the kept tree, and saves the sidecar when that is
  /// due (`LogTree.isSaveDue`). Never throws: the write is done; a tree that cannot follow is dropped.
  func keepTree(_ leaves: LogTree.LeafRun?, state: inout State) {
    guard let leaves, let tree = state.tree else { return }
    guard tree.extend(with: leaves), tree.size == state.index.lastSequence else {
      state.tree = nil
      return
    }
    if tree.isSaveDue { tree.save() }
  }

  /// Saves the kept tree when it holds leaves the sidecar does not.
  func saveTree(_ state: inout State) {
    if let tree = state.tree, tree.unsavedCount > 0 { tree.save() }
  }
}
