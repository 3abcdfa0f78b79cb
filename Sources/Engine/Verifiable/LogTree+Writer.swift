import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The tree a writer keeps: extended with the leaf hashes of the lines it writes (it has their
/// bytes), saved when that is due (`isSaveDue`), so that `head` after a write reads few of
/// its lines, or none.
extension LogTree {
  /// Extends the tree with a committed write's leaves, when the tree ends where the write
  /// began; otherwise (another process appended in between) reads the log from the tree's
  /// end, the write's lines included. Returns false when the tree could not be brought up to
  /// date: the writer then drops it.
  func extend(with run: LeafRun) -> Bool {
    guard run.count > 0, run.startOffset == file.end, run.firstSequence == file.size + 1 else {
      return (try? catchUp()) != nil
    }
    let startedShort = file.end < TreeFile.firstBytesCount
    add(run)
    if startedShort {
      // The hash covers min(end, 4096) bytes: it changes while the log is that short.
      guard let hash = try? firstBytesHash() else { return false }
      file.firstBytesHash = hash
    }
    return true
  }

  /// Whether saving the sidecar is worth its rewrite: a tile completed since it was last
  /// saved (or adopted), and the leaves it lacks are at least an eighth of those it holds. A
  /// save rewrites the whole file (about 40 bytes per 256 events, two syncs), so a writer that
  /// appends millions of events saves a few dozen times, not once per tile (the same rule as
  /// the index's, `EventLog.saveIndexIfDue`).
  var isSaveDue: Bool {
    size / TreeFile.tileWidth > savedSize / TreeFile.tileWidth && unsavedCount >= savedSize / 8
  }

  /// The leaves left unsaved.
  var unsavedCount: Int64 { size - savedSize }
}

extension LogTree.LeafRun {
  /// An empty run that starts at `offset` with the line of `sequence`.
  init(startingAt offset: Int64, sequence: Int64) {
    self.init(
      startOffset: offset, endOffset: offset, firstSequence: sequence, hashes: [],
      tileStarts: [], stoppedAtBadLine: false)
  }

  /// Adds the leaf hashes of `lines`, whole lines each ending with `\n`, the first of which
  /// starts at the run's end (`endOffset`): hashed straight from the write's buffer by one call
  /// to the C target for many lines (two at a time with the CPU's SHA-256 instructions), with
  /// no allocation but the run's own growth.
  mutating func addLines(_ lines: UnsafeRawBufferPointer) {
    let hashByteCount = MerkleTree.hashByteCount
    var position = 0
    while position < lines.count {
      let remaining = UnsafeRawBufferPointer(rebasing: lines[position...])
      // Room for a line per 96 bytes (a log line is longer); a shorter one takes another turn.
      let room = remaining.count / 96 + 8
      let oldCount = hashes.count
      let firstIndex = firstSequence - 1 + count
      hashes.append(contentsOf: repeatElement(0, count: room * hashByteCount))
      let hashed = withUnsafeTemporaryAllocation(
        of: Int64.self, capacity: room / Int(TreeFile.tileWidth) + 1
      ) { starts -> SHA256.LeafHashCount? in
        let hashed = hashes.withUnsafeMutableBytes { output -> SHA256.LeafHashCount? in
          // Both buffers hold at least one element, so both have an address; were one ever
          // without, the lines from here on are left unhashed (below).
          guard let digests = output.baseAddress, let starts = starts.baseAddress else {
            return nil
          }
          return SHA256.leafHashes(
            of: remaining, firstIndex: firstIndex, tileWidth: TreeFile.tileWidth,
            into: digests + oldCount, capacity: room, tileStarts: starts)
        }
        for start in starts[..<(hashed?.tileStarts ?? 0)] {
          tileStarts.append(endOffset + Int64(position) + start)
        }
        return hashed
      }
      guard let done = hashed else {
        hashes.removeLast(room * hashByteCount)
        break
      }
      hashes.removeLast((room - done.lines) * hashByteCount)
      position += done.consumedBytes
      if done.lines < room { break }
    }
    endOffset += Int64(position)
    if position < lines.count {
      // Not whole lines (never from a writer), or lines left unhashed: the run no longer ends
      // where the log does, so `extend` reads the log instead.
      stoppedAtBadLine = true
      endOffset = -1
    }
  }
}
