import Events
import Foundation
import ReplayTestSupport
import Testing

@testable import Engine

/// The tree built from many lines at once (`LogTree+Build.swift`): the quick scan, its two
/// halves, and what it leaves to the general reader.
@Suite struct LogTreeBuildTests {
  static func lines(_ path: String) throws -> [[UInt8]] {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    return bytes.split(separator: 0x0A).map { Array($0) }
  }

  static func hashes(of run: LogTree.LeafRun) -> [[UInt8]] {
    stride(from: 0, to: run.hashes.count, by: 32).map { Array(run.hashes[$0..<$0 + 32]) }
  }

  @Test func aScanFromAnyOffsetStartsAtTheNextWholeLineAndHashesEachLine() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 600, seed: "scan")
      let lines = try Self.lines(path)
      let leaves = lines.map { MerkleTree.leafHash($0) }
      var starts: [Int64] = [0]
      for line in lines { starts.append(starts.last! + Int64(line.count) + 1) }
      let end = starts.last!
      let log = try FileDescriptor.open(path, .readOnly)
      defer { log.close() }
      let whole = try LogTree.scan(log, from: 0, sequence: 1, to: end, stopAt: end)
      #expect(Self.hashes(of: whole) == leaves)
      #expect(whole.endOffset == end && !whole.stoppedAtBadLine)
      #expect(whole.tileStarts == [starts[0], starts[256], starts[512]])

      let seed = TestSeed.make()
      var random = SplitMix64(seed: seed)
      // Line starts, the bytes just before and after them, and random offsets.
      var offsets = [Int64(1), starts[1] - 1, starts[1], starts[1] + 1, starts[300], end - 1]
      for _ in 0..<40 { offsets.append(Int64.random(in: 1..<end, using: &random)) }
      for offset in offsets {
        let run = try LogTree.scan(log, from: offset, sequence: nil, to: end, stopAt: end)
        let first = try #require(starts.firstIndex { $0 >= offset }, "offset \(offset)")
        #expect(run.startOffset == starts[first], "offset \(offset), seed \(seed)")
        #expect(run.firstSequence == (first < lines.count ? Int64(first + 1) : 0))
        #expect(Self.hashes(of: run) == Array(leaves[first...]), "offset \(offset), seed \(seed)")
      }
    }
  }

  @Test func twoHalvesJoinIntoTheWholeTree() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 1300, seed: "halves")
      let leaves = try Self.lines(path).map { MerkleTree.leafHash($0) }
      let end = Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
      let runs = try LogTree.scanInTwo(path: path, from: 0, sequence: 1, to: end, stopAt: end)
      #expect(runs.count == 2)
      #expect(runs.flatMap { Self.hashes(of: $0) } == leaves)
      #expect(runs[0].endOffset == runs[1].startOffset)
      #expect(runs[1].firstSequence == runs[0].count + 1)
    }
  }

  /// Rewrites line `number` (1-based) of the log with `change`, fixing its `crc` when asked.
  static func rewriteLine(
    _ path: String, _ number: Int, fixingChecksum: Bool, _ change: (inout [UInt8]) -> Void
  ) throws {
    var lines = try Self.lines(path)
    change(&lines[number - 1])
    if fixingChecksum {
      let body = Array(lines[number - 1].dropLast(18))
      let crc = String(CRC32C.checksum(of: body), radix: 16)
      let digits = String(repeating: "0", count: 8 - crc.count) + crc
      lines[number - 1] = body + Array(#","crc":"\#(digits)"}"#.utf8)
    }
    let bytes: [UInt8] = lines.flatMap { $0 + [UInt8(0x0A)] }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
  }

  @Test(arguments: [
    ("a flipped byte", false),
    ("a wrong seq with a valid crc", true),
  ])
  func aBadLineStopsTheQuickScanAndTheGeneralReaderNamesIt(damage: String, fixingChecksum: Bool)
    throws
  {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 700, seed: "bad")
      // The tree built from the log, not the one its writer saved.
      try FileManager.default.removeItem(atPath: path + ".tree")
      try Self.rewriteLine(path, 400, fixingChecksum: fixingChecksum) { line in
        if fixingChecksum {
          // {"seq":400, -> {"seq":401,
          line[9] = UInt8(ascii: "1")
        } else {
          line[60] ^= 0x01
        }
      }
      let end = Int64(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
      let log = try FileDescriptor.open(path, .readOnly)
      defer { log.close() }
      let run = try LogTree.scan(log, from: 0, sequence: 1, to: end, stopAt: end)
      #expect(run.count == 399 && run.stoppedAtBadLine, "\(damage)")
      let error = #expect(throws: EngineError.self) {
        _ = try LogTree.open(LogReader(path: path))
      }
      guard case .corruptLine(_, let line, _, _) = error else {
        Issue.record("\(damage): expected a corrupt line, found \(String(describing: error))")
        return
      }
      #expect(line == 400, "\(damage)")
      #expect(!FileManager.default.fileExists(atPath: path + ".tree"))
    }
  }

  @Test func aTornLastLineIsNotInTheTree() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 300, seed: "torn")
      let leaves = try Self.lines(path).map { MerkleTree.leafHash($0) }
      let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
      try handle.seekToEnd()
      try handle.write(contentsOf: Array(#"{"seq":301,"id":"#.utf8))
      try handle.close()
      let tree = try LogTree.open(LogReader(path: path))
      #expect(tree.size == 300)
      #expect(tree.root == MerkleTree.root(leafHashes: leaves))
    }
  }
}
