import Events
import Foundation
import Generator
import ReplayTestSupport
import Testing

@testable import Engine

/// The tree a writer keeps (`EventLog+Tree.swift`): extended with each write, saved when a
/// tile completes (and the leaves unsaved are an eighth of the saved ones), and never
/// trusted when it does not belong to the log.
@Suite struct WriterTreeTests {
  /// The root of the log at `path` from its lines, read as plain text.
  static func expectedRoot(_ path: String) throws -> (size: Int64, root: [UInt8]) {
    let leaves = try LogTreeTests.leafHashes(path)
    return (Int64(leaves.count), MerkleTree.root(leafHashes: leaves))
  }

  /// The sidecar beside the log at `path`, parsed (`nil` when missing or not one).
  static func sidecar(_ path: String) -> TreeFile? {
    guard let data = FileManager.default.contents(atPath: path + ".tree") else { return nil }
    return TreeFile(bytes: [UInt8](data))
  }

  static func favorite(_ log: EventLog, _ number: Int) throws {
    try log.append(
      [proposed("ContactFavorited", #"{"id":"\#(number)"}"#)], to: "contact-\(number)")
  }

  @Test func aLargeWriteKeepsTheTreeAndSavesItsSidecar() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 700, seed: "writer", chunkSize: 700)
      // The write of 700 started the tree (an empty log) and saved it: no line to read.
      let saved = try #require(Self.sidecar(path))
      #expect(saved.size == 700)
      let expected = try Self.expectedRoot(path)
      #expect(saved.root == expected.root)
      let opened = try LogTree.open(LogReader(path: path))
      #expect(opened.rebuildReason == nil)
      #expect(opened.root == expected.root)

      // A later writer adopts the sidecar for a large write and extends it.
      let log = try EventLog(path: path, configuration: testConfiguration())
      var generator = LogGenerator(seed: "writer-more")
      try log.appendGenerated(300, from: &generator, chunkSize: 300)
      #expect(Self.sidecar(path)?.size == 1000)
      #expect(Self.sidecar(path)?.root == (try Self.expectedRoot(path)).root)
      let head = try log.treeHead()
      #expect(head.size == 1000)
      #expect(head.root == (try Self.expectedRoot(path)).root)
    }
  }

  /// A long-lived writer answers `treeHead()` from memory after its first one: the sidecar,
  /// removed, is not read or written again until a tile completes.
  @Test func aLongLivedWriterGivesTheHeadFromMemory() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      #expect(try log.treeHead() == EventLog.TreeHead(size: 0, root: MerkleTree.emptyRoot))
      for number in 1...10 { try Self.favorite(log, number) }
      let first = try log.treeHead()
      #expect(first.size == 10)
      #expect(first.root == (try Self.expectedRoot(path)).root)
      try FileManager.default.removeItem(atPath: path + ".tree")
      for number in 11...250 {
        try Self.favorite(log, number)
        if number % 60 == 0 {
          let head = try log.treeHead()
          #expect(head.size == Int64(number))
          #expect(head.root == (try Self.expectedRoot(path)).root)
        }
      }
      #expect(!FileManager.default.fileExists(atPath: path + ".tree"))
      // The 256th leaf completes a tile: the writer saves the sidecar.
      for number in 251...256 { try Self.favorite(log, number) }
      #expect(Self.sidecar(path)?.size == 256)
      for number in 257...300 { try Self.favorite(log, number) }
      #expect(Self.sidecar(path)?.size == 256)
      // `saveIndex()`, at the end of a series of writes, saves the rest.
      try log.saveIndex()
      let saved = try #require(Self.sidecar(path))
      #expect(saved.size == 300)
      #expect(saved.root == (try Self.expectedRoot(path)).root)
      #expect(try log.treeHead().root == saved.root)
    }
  }

  /// A save rewrites the whole sidecar: a writer saves when a tile completes only once the
  /// leaves it lacks are an eighth of those it holds.
  @Test func aLargerLogIsSavedAfterAnEighthMore() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 4096, seed: "eighth", chunkSize: 4096)
      #expect(Self.sidecar(path)?.size == 4096)
      let log = try EventLog(path: path, configuration: testConfiguration())
      _ = try log.treeHead()
      for number in 1...256 { try Self.favorite(log, number) }
      // A tile completed, but 256 < 4096 / 8.
      #expect(Self.sidecar(path)?.size == 4096)
      var generator = LogGenerator(seed: "eighth-more")
      try log.appendGenerated(256, from: &generator, chunkSize: 256)
      #expect(Self.sidecar(path)?.size == 4608)
      #expect(Self.sidecar(path)?.root == (try Self.expectedRoot(path)).root)
    }
  }

  /// Lines another process appended between two writes are read from the log, not skipped.
  @Test func anotherWritersLinesAreReadIn() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let mine = try EventLog(path: path, configuration: testConfiguration())
      try Self.favorite(mine, 1)
      _ = try mine.treeHead()
      let other = try EventLog(path: path, configuration: testConfiguration())
      for number in 2...6 { try Self.favorite(other, number) }
      try Self.favorite(mine, 7)
      let head = try mine.treeHead()
      #expect(head.size == 7)
      #expect(head.root == (try Self.expectedRoot(path)).root)
      for number in 8...9 { try Self.favorite(other, number) }
      #expect(try mine.treeHead().root == (try Self.expectedRoot(path)).root)
    }
  }

  /// A sidecar copied from another copy of the log, one cut short, one from a longer version
  /// of the log, and one that cannot be saved: never trusted, the head always the log's.
  @Test func foreignTruncatedStaleOrUnsavableSidecarsAreNotTrusted() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 600, seed: "bound", chunkSize: 600)
      // A byte-for-byte copy of the log and its sidecar: the copy's sidecar is another file's.
      let copy = directory + "/copy.jsonl"
      try FileManager.default.copyItem(atPath: path, toPath: copy)
      try FileManager.default.copyItem(atPath: path + ".tree", toPath: copy + ".tree")
      #expect(LogTree.forWriter(LogReader(path: copy), committedEnd: 1) == nil)
      let copied = try EventLog(path: copy, configuration: testConfiguration())
      var generator = LogGenerator(seed: "bound-copy")
      try copied.appendGenerated(300, from: &generator, chunkSize: 300)
      #expect(try copied.treeHead().root == (try Self.expectedRoot(copy)).root)
      #expect(Self.sidecar(copy)?.size == 900)

      // Cut short.
      let bytes = try fileBytes(path + ".tree")
      try writeBytes(Array(bytes[..<(bytes.count / 2)]), to: path + ".tree")
      let log = try EventLog(path: path, configuration: testConfiguration())
      try log.appendGenerated(300, from: &generator, chunkSize: 300)
      let head = try log.treeHead()
      #expect(head.size == 900)
      #expect(head.root == (try Self.expectedRoot(path)).root)

      // The log cut back under a sidecar that covers more (what `repair` does).
      let lines = try fileBytes(path).split(separator: 0x0A)
      try writeBytes(lines[..<600].map { Array($0) + [0x0A] }.joined().map { $0 }, to: path)
      let cut = try EventLog(path: path, configuration: testConfiguration())
      try cut.appendGenerated(256, from: &generator, chunkSize: 256)
      #expect(try cut.treeHead().root == (try Self.expectedRoot(path)).root)
      #expect(Self.sidecar(path)?.size == 856)

      // A sidecar that cannot be written (its name taken by a folder): the head is right,
      // nothing is saved, and no temporary file is left.
      try FileManager.default.removeItem(atPath: path + ".tree")
      try FileManager.default.createDirectory(
        atPath: path + ".tree", withIntermediateDirectories: false)
      let blocked = try EventLog(path: path, configuration: testConfiguration())
      try blocked.appendGenerated(300, from: &generator, chunkSize: 300)
      try blocked.saveIndex()
      #expect(try blocked.treeHead().root == (try Self.expectedRoot(path)).root)
      let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory)
        .filter { $0.contains(".tree.tmp-") }
      #expect(leftovers.isEmpty, "\(leftovers)")
    }
  }

  /// The catch-up reads the log a segment at a time: with small segments (and the two-thread
  /// scan on most of them) the loop runs many times and gives the same root.
  @Test(arguments: [
    (Int64(4096), Int64(1 << 40)), (Int64(8192), Int64(4096)), (Int64(100_000), Int64(1)),
  ])
  func theSegmentLoopGivesTheReferenceRoot(segmentSize: Int64, parallelThreshold: Int64) throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 1500, seed: "segments")
      let expected = try Self.expectedRoot(path)
      let logSize = try #require(FileDescriptor.status(atPath: path)?.size)
      #expect(logSize > 4 * segmentSize)
      let tree = try LogTree.open(
        LogReader(path: path), usingSidecar: false, saving: false, segmentSize: segmentSize,
        parallelThreshold: parallelThreshold)
      #expect(tree.size == expected.size)
      #expect(tree.root == expected.root)
      #expect(try tree.leafHash(sequence: 1000) == (try LogTreeTests.leafHashes(path))[999])
    }
  }

  /// A writer's buffer hashed in one call (`LeafRun.addLines`): lines far shorter than a log's
  /// take the call's loop many turns (its room is a line per 96 bytes), and each leaf, each
  /// tile start and the run's end are what one line at a time gives; a partial last line
  /// leaves the run not ending where the log does.
  @Test(arguments: [1, 5, 95, 96, 97, 200])
  func addLinesEqualsOneLeafAtATime(lineLength: Int) {
    var text: [UInt8] = []
    var lines: [[UInt8]] = []
    for index in 0..<700 {
      let line = Array(String(repeating: String(index % 10), count: lineLength).utf8)
      lines.append(line)
      text += line + [0x0A]
    }
    var run = LogTree.LeafRun(startingAt: 1000, sequence: 200)
    let split = 300 * (lineLength + 1)
    text.withUnsafeBytes {
      run.addLines(UnsafeRawBufferPointer(rebasing: $0[..<split]))
    }
    text.withUnsafeBytes {
      run.addLines(UnsafeRawBufferPointer(rebasing: $0[split...]))
    }
    var expected = LogTree.LeafRun(startingAt: 1000, sequence: 200)
    var offset: Int64 = 1000
    for (index, line) in lines.enumerated() {
      line.withUnsafeBufferPointer {
        expected.appendLeaf(
          $0.baseAddress!, length: line.count, sequence: 200 + Int64(index), offset: offset)
      }
      offset += Int64(line.count + 1)
    }
    expected.endOffset = offset
    #expect(run.count == 700)
    #expect(run.hashes == expected.hashes)
    #expect(run.tileStarts == expected.tileStarts)
    #expect(run.tileStarts.count == 3)  // seq 257, 513 and 769
    #expect(run.endOffset == offset)
    #expect(!run.stoppedAtBadLine)

    Array("partial".utf8).withUnsafeBytes { run.addLines($0) }
    #expect(run.count == 700)
    #expect(run.stoppedAtBadLine)
    #expect(run.endOffset == -1)
  }
}
