import Events
import Foundation

/// A tree head as the text of a C2SP tlog-checkpoint: the log's origin line, the tree size in
/// decimal, the root hash in standard base64, each on its own line. Signed with
/// `SignedNote.Signer.sign(_:)` it is what `replay head --sign` prints.
package struct Checkpoint: Sendable, Equatable {
  /// Names the log; the first line. Default: `replay/<the log's file name>`.
  public var origin: String
  /// How many events the tree covers.
  public var size: Int64
  /// The tree's root hash (32 bytes).
  public var root: [UInt8]

  public init(origin: String, size: Int64, root: [UInt8]) {
    self.origin = origin
    self.size = size
    self.root = root
  }

  /// `<origin>\n<size>\n<base64 root>\n`.
  public var text: String {
    "\(origin)\n\(size)\n\(Data(root).base64EncodedString())\n"
  }

  /// Reads a checkpoint's text (a signed note's text, after `SignedNote.open`); lines after
  /// the third (extensions) are allowed and ignored.
  /// - Throws: `TreeError.invalidInput` naming the line that is wrong.
  public init(text: String) throws(TreeError) {
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count >= 4, !lines[0].isEmpty else {
      throw .invalidInput(
        problem: "checkpoint: expected an origin line, a size line and a root line")
    }
    guard let size = Int64(lines[1]), size >= 0, String(size) == lines[1] else {
      throw .invalidInput(
        problem: "checkpoint line 2: expected the tree size in decimal, found '\(lines[1])'")
    }
    guard let root = SignedNote.decodeBase64(lines[2]), root.count == MerkleTree.hashByteCount
    else {
      throw .invalidInput(
        problem: "checkpoint line 3: expected the base64 of a 32-byte root hash, found "
          + "'\(lines[2])'")
    }
    self.init(origin: String(lines[0]), size: size, root: root)
  }

  /// The default origin for the log at `logPath`: `replay/<file name>`.
  public static func defaultOrigin(forLog logPath: String) -> String {
    "replay/" + (logPath.split(separator: "/").last.map(String.init) ?? logPath)
  }
}
