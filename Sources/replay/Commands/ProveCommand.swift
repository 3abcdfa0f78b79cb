import Engine
import Events
import Postgres

/// `replay prove`: an inclusion proof of one event, or a consistency proof between two heads.
enum ProveCommand {
  static let command = Command(
    name: "prove",
    abstract: "Prove that an event is in the log, or that the log only grew (RFC 9162).",
    discussion: """
      'replay prove <seq>' prints the inclusion proof of event <seq> in the tree of \
      --head events (seq, leafIndex, treeSize, leafHash, rootHash, path). 'replay prove \
      --consistency <old size>' prints the proof that the tree of <old size> events is a \
      prefix of the tree of --head events (fromSize, toSize, fromRoot, toRoot, path). Hashes are lowercase hex; the \
      path runs from the leaf (or the old tree) up. With --json the proof is one JSON object: \
      save it to a file, 'replay check --proof' reads it.
      """,
    arguments: [
      Argument(name: "seq", help: "The event to prove.", isOptional: true)
    ],
    options: [
      CommonOptions.log,
      consistency, head,
      CommonOptions.json.withHelp("Print the proof as JSON, the form 'replay check' reads."),
    ],
    run: run)

  static let consistency = ValueOption(
    names: ["--consistency"], valueName: "old-size",
    help: "Prove the tree of this many events is a prefix of the --head tree.",
    expecting: positive, Int64.positive)
  static let head = ValueOption(
    names: ["--head"], valueName: "size", help: "The tree to prove against.",
    defaultDescription: "the whole log", expecting: positive, Int64.positive)
  static let positive = "expected a whole number ≥ 1"

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let sequence = try invocation.parse("seq", expecting: positive, Int64.positive)
    let oldSize = try invocation[consistency]
    let head = try invocation[ProveCommand.head]
    switch (sequence, oldSize) {
    case (nil, nil):
      throw UsageError("Give the <seq> to prove, or '--consistency <old size>'")
    case (.some, .some):
      throw UsageError.notBoth("<seq>", "'--consistency <old size>'")
    default: break
    }
    // No `<log>.tree` beside a database: its rows' lines (the file's, byte for byte) are
    // hashed here, so the proofs are the file's.
    let tree: any ProofSource =
      try invocation.postgresLog.map {
        LeafHashTree(leafHashes: try MerkleTree.leafHashes(lines: $0.lineSource))
      } ?? LogTree.open(invocation.logReader)
    let size = head ?? tree.size
    var writer = JSONWriter()
    writer.beginObject()
    if let sequence {
      let path = try tree.inclusionPath(sequence: sequence, size: size)
      writer.member("seq", sequence)
      writer.member("leafIndex", sequence - 1)
      writer.member("treeSize", size)
      writer.member("leafHash", SHA256.hex(try tree.leafHash(sequence: sequence)))
      writer.member("rootHash", SHA256.hex(try tree.root(size: size)))
      writeHashes(path, to: &writer)
    } else if let oldSize {
      let path = try tree.consistencyPath(from: oldSize, to: size)
      writer.member("fromSize", oldSize)
      writer.member("toSize", size)
      writer.member("fromRoot", SHA256.hex(try tree.root(size: oldSize)))
      writer.member("toRoot", SHA256.hex(try tree.root(size: size)))
      writeHashes(path, to: &writer)
    }
    writer.endObject()
    if invocation[CommonOptions.json] {
      invocation.terminal.write(bytes: writer.bytes + [0x0A])
    } else {
      invocation.terminal.write(try text(of: writer.bytes))
    }
    return .success
  }

  /// The proof as lines of text: each member on its own line, the path's hashes indented.
  static func text(of json: [UInt8]) throws -> String {
    guard let object = try JSONValue.parse(json).objectValue else { return "" }
    var lines: [String] = []
    for member in object.members {
      if let hashes = member.value.arrayValue {
        lines.append("path (\(hashes.count) hashes, leaf side first):")
        lines += hashes.map { "  " + ($0.stringValue ?? "") }
      } else {
        lines.append(member.key + " " + (member.value.stringValue ?? member.value.snippet))
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  static func writeHashes(_ path: [[UInt8]], to writer: inout JSONWriter) {
    writer.key("path")
    writer.beginArray()
    for hash in path { writer.string(SHA256.hex(hash)) }
    writer.endArray()
  }
}
