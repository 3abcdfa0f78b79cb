import Engine
import Events
import Foundation
import Postgres

/// `replay head`: the Merkle tree head (size and root) of the log, optionally signed.
enum HeadCommand {
  static let command = Command(
    name: "head",
    abstract: "Print the log's Merkle tree head (RFC 9162): its size and root hash.",
    discussion: """
      The tree's leaves are the log's lines (leaf = SHA-256(0x00 || line), node = \
      SHA-256(0x01 || left || right); docs/FORMAT.md). With --sign, prints a signed note \
      (C2SP tlog-checkpoint: origin, size, base64 root, a blank line, the signature line) that \
      'replay verify --note' and 'replay check' accept. The tree is kept in <log>.tree, a \
      cache brought up to date here from the lines appended since.
      """,
    options: [
      CommonOptions.log,
      ReadOptions.at.withHelp("The tree of events 1 through <seq>."),
      ReadOptions.asOf.withHelp("The tree of every event at or before this ISO 8601 time."),
      sign, origin, CommonOptions.json,
    ],
    run: run)

  static let sign = TextOption(
    names: ["--sign"], valueName: "key-file",
    help: "Print a signed note with this key (from 'replay keygen').")
  static let origin = TextOption(
    names: ["--origin"], valueName: "text", help: "The note's origin line (with --sign).",
    defaultDescription: "replay/<log file name>")

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let keyFile = invocation[sign]
    if keyFile == nil, invocation[origin] != nil {
      throw UsageError("'--origin' names the signed note's origin: it needs '--sign <key file>'")
    }
    if keyFile != nil, invocation[CommonOptions.json] {
      throw UsageError("'--sign' prints a signed note, '--json' a JSON object: give one of them")
    }
    let signer = try keyFile.map { try readSigner($0) }
    let size: Int64
    let root: [UInt8]
    if let database = invocation.postgresLog {
      // No `<log>.tree` beside a database: the rows' lines are hashed here, each the file's
      // line byte for byte, so the head is the file's.
      let tree = LeafHashTree(leafHashes: try MerkleTree.leafHashes(lines: database.lineSource))
      size = try treeSize(invocation, logSize: tree.size) { instant in
        try LogReader.lastSequence(atOrBefore: instant, lines: database.lineSource)
      }
      root = try tree.root(size: size)
    } else {
      let reader = invocation.logReader
      let tree = try LogTree.open(reader)
      size = try treeSize(invocation, logSize: tree.size) { instant in
        try reader.lastSequence(atOrBefore: instant)
          ?? LogReader.lastSequence(atOrBefore: instant) { _ = try reader.forEachEvent($0) }
      }
      root = try tree.root(size: size)
    }
    if let signer {
      let origin =
        invocation[HeadCommand.origin] ?? Checkpoint.defaultOrigin(forLog: invocation.logName)
      guard !origin.isEmpty, !origin.contains("\n") else {
        throw UsageError("'--origin' must be one non-empty line")
      }
      invocation.terminal.write(
        signer.sign(Checkpoint(origin: origin, size: size, root: root).text))
    } else if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("treeSize", size)
        writer.member("rootHash", SHA256.hex(root))
      }
    } else {
      invocation.terminal.write("tree size \(size)\nroot hash \(SHA256.hex(root))\n")
    }
    return .success
  }

  /// The size `--at` or `--as-of` asks for, or the whole log's (`logSize` events).
  /// - Parameter lastAtOrBefore: the last event at or before a time.
  static func treeSize(
    _ invocation: ParsedInvocation, logSize: Int64,
    lastAtOrBefore: (Timestamp) throws -> Int64
  ) throws -> Int64 {
    switch try invocation.replayPoint() {
    case .end: return logSize
    case .sequence(let sequence):
      guard sequence <= logSize else {
        throw InputError.invalid("--at \(sequence): the log has \(logSize) events")
      }
      return sequence
    case .instant(let instant): return try lastAtOrBefore(instant)
    }
  }

  /// The signer in the private key file `path`.
  static func readSigner(_ path: String) throws -> SignedNote.Signer {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw InputError.unavailable(
        "cannot read the private key file '\(path)'; make one with 'replay keygen'")
    }
    return try SignedNote.Signer(privateKeyText: String(decoding: data, as: UTF8.self))
  }
}

extension TreeError: CLIError {
  /// A mismatch is what verification exists to find (74, as 'verify' finding problems); bad
  /// input is 65.
  var exitCode: ExitCode {
    switch self {
    case .mismatch: .ioError
    case .invalidInput: .invalidInput
    }
  }

  var message: String { description }
}
