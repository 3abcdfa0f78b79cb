import Engine
import Events
import Foundation
import Generator
import ReplayTestSupport
import Testing

/// The log's tree and its `<log>.tree` sidecar, against the in-memory tree over the log's lines.
@Suite struct LogTreeTests {
  /// The leaf hashes of every line of the log at `path`, read as plain text.
  static func leafHashes(_ path: String) throws -> [[UInt8]] {
    let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    return bytes.split(separator: 0x0A).map { MerkleTree.leafHash(Array($0)) }
  }

  @Test func rootsAndProofsEqualTheInMemoryTree() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 1100, seed: "tree")
      let leaves = try Self.leafHashes(path)
      #expect(leaves.count == 1100)
      let tree = try LogTree.open(LogReader(path: path))
      #expect(tree.size == 1100)
      #expect(tree.root == MerkleTree.root(leafHashes: leaves))
      for size in [1, 2, 255, 256, 257, 511, 512, 513, 1024, 1099] {
        let prefix = Array(leaves[..<size])
        #expect(try tree.root(size: Int64(size)) == MerkleTree.root(leafHashes: prefix))
        for sequence in [1, size / 2 + 1, size] {
          #expect(
            try tree.inclusionPath(sequence: Int64(sequence), size: Int64(size))
              == MerkleTree.inclusionPath(index: Int64(sequence - 1), leafHashes: prefix))
        }
        #expect(
          try tree.consistencyPath(from: Int64(size), to: 1100)
            == MerkleTree.consistencyPath(from: Int64(size), leafHashes: leaves))
      }
      #expect(try tree.leafHash(sequence: 700) == leaves[699])
    }
  }

  @Test func theSidecarIsExtendedNotRebuiltAfterAppends() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 600, seed: "grow")
      // (The write of 600 saved a sidecar: see `WriterTreeTests`.)
      try FileManager.default.removeItem(atPath: path + ".tree")
      let first = try LogTree.open(LogReader(path: path))
      #expect(first.rebuildReason == "there is no sidecar")
      #expect(FileManager.default.fileExists(atPath: path + ".tree"))
      let again = try LogTree.open(LogReader(path: path))
      #expect(again.rebuildReason == nil)
      #expect(again.root == first.root)

      // What a save killed with `kill -9` leaves (pid 2^22 + 1 is past Linux's largest).
      let leftover = path + ".tree.tmp-4194305-0123456789abcdef"
      FileManager.default.createFile(atPath: leftover, contents: Data([1, 2, 3]))
      let log = try EventLog(path: path, configuration: testConfiguration())
      var generator = LogGenerator(seed: "grow-more")
      try log.appendGenerated(500, from: &generator, chunkSize: 100)
      let grown = try LogTree.open(LogReader(path: path))
      #expect(grown.rebuildReason == nil)
      #expect(grown.size == 1100)
      #expect(grown.root == MerkleTree.root(leafHashes: try Self.leafHashes(path)))
      #expect(!FileManager.default.fileExists(atPath: leftover))
      // The old head is a prefix of the new one.
      try MerkleTree.verifyConsistency(
        oldSize: 600, newSize: 1100, oldRoot: first.root, newRoot: grown.root,
        path: grown.consistencyPath(from: 600, to: 1100))
    }
  }

  @Test func aForeignDamagedOrStaleSidecarIsRebuilt() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 300, seed: "mine", chunkSize: 50)
      let expected = MerkleTree.root(leafHashes: try Self.leafHashes(path))
      let otherDirectory = directory + "/other"
      try FileManager.default.createDirectory(
        atPath: otherDirectory, withIntermediateDirectories: false)
      let other = try makeGeneratedLog(in: otherDirectory, count: 300, seed: "theirs")
      _ = try LogTree.open(LogReader(path: other))

      // Another log's sidecar.
      try FileManager.default.copyItem(atPath: other + ".tree", toPath: path + ".tree")
      let foreign = try LogTree.open(LogReader(path: path))
      #expect(
        foreign.rebuildReason?.hasPrefix("the sidecar was made from another file (device ") == true,
        "\(String(describing: foreign.rebuildReason))")
      #expect(foreign.root == expected)

      // A flipped byte in the sidecar.
      var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path + ".tree")))
      bytes[100] ^= 1
      try Data(bytes).write(to: URL(fileURLWithPath: path + ".tree"))
      let damaged = try LogTree.open(LogReader(path: path))
      #expect(damaged.rebuildReason == "the sidecar is damaged or not a tree file")
      #expect(damaged.root == expected)

      // The log cut back to 200 lines (at the end of a write).
      let lines = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))).split(separator: 0x0A)
      let cut = lines[..<200].map { Array($0) + [0x0A] }.joined()
      try Data(cut).write(to: URL(fileURLWithPath: path))
      let shorter = try LogTree.open(LogReader(path: path))
      #expect(
        shorter.rebuildReason?.contains("more than the log") == true,
        "\(String(describing: shorter.rebuildReason))")
      #expect(shorter.size == 200)
      #expect(shorter.root == MerkleTree.root(leafHashes: try Self.leafHashes(path)))
    }
  }

  /// Sealed lines never change: erasing a contact destroys a key, not a line, so the root and
  /// every proof made before still hold.
  @Test func erasureChangesNoRootAndNoProof() throws {
    try withTemporaryDirectory { directory in
      let path = try RepositoryFiles.copySampleLog(to: directory)
      let before = try LogTree.open(LogReader(path: path))
      let proof = try before.inclusionPath(sequence: 3, size: before.size)
      let log = try EventLog(path: path, configuration: testConfiguration())
      _ = try log.eraseContact(ContactID("13"))
      let after = try LogTree.open(LogReader(path: path))
      #expect(after.rebuildReason == nil)
      #expect(try after.root(size: before.size) == before.root)
      try MerkleTree.verifyInclusion(
        leafHash: after.leafHash(sequence: 3), index: 2, size: before.size, path: proof,
        root: before.root)
      if after.size > before.size {
        try MerkleTree.verifyConsistency(
          oldSize: before.size, newSize: after.size, oldRoot: before.root, newRoot: after.root,
          path: after.consistencyPath(from: before.size, to: after.size))
      }
    }
  }
}
