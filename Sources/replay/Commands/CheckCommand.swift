import Engine
import Events
import Foundation

/// `replay check`: checks a signed tree head and a proof offline, without the log.
enum CheckCommand {
  static let command = Command(
    name: "check",
    abstract: "Check a signed tree head and a proof, offline: no log needed.",
    discussion: """
      For an auditor who holds no log. With --line and --proof: the event line (as the log \
      holds it) is in the tree the note signs ('replay prove <seq> --head <size> --json' \
      makes the proof). With --consistency and --old-note: the log the old note signs is a \
      prefix of the one the note signs ('replay prove --consistency <old size> --head <size> \
      --json'). Prints what holds and exits 0; otherwise names what does not match and exits \
      74 (65 when a file is not in its format).
      """,
    options: [note, key, line, proof, consistency, oldNote],
    run: run)

  static let note = TextOption(
    names: ["--note"], valueName: "file", help: "The signed tree head ('replay head --sign').",
    isRequired: true)
  static let key = TextOption(
    names: ["--key"], valueName: "verifier-key",
    help: "The verifier key ('replay keygen' prints it), or a file holding it.",
    isRequired: true)
  static let line = TextOption(names: ["--line"], valueName: "file", help: "The event's line.")
  static let proof = TextOption(
    names: ["--proof"], valueName: "file", help: "Its inclusion proof (JSON).")
  static let consistency = TextOption(
    names: ["--consistency"], valueName: "proof-file",
    help: "A consistency proof (JSON) from the old note's tree to the note's.")
  static let oldNote = TextOption(
    names: ["--old-note"], valueName: "file", help: "The older signed tree head.")

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let line = invocation[CheckCommand.line]
    let proof = invocation[CheckCommand.proof]
    let consistency = invocation[CheckCommand.consistency]
    let oldNote = invocation[CheckCommand.oldNote]
    let inclusionGiven = line != nil || proof != nil
    let consistencyGiven = consistency != nil || oldNote != nil
    guard inclusionGiven != consistencyGiven else {
      throw UsageError(
        "Give either '--line <file> --proof <file>' or '--consistency <file> --old-note <file>'")
    }
    let verifier = try readVerifier(invocation.requiredValue(key))
    let head = try openNote(invocation.requiredValue(note), verifier: verifier)
    if let line, let proof {
      var lineBytes = try read(line, what: "event line")
      if lineBytes.last == 0x0A { lineBytes.removeLast() }
      let object = try readProof(proof)
      let leafHash = MerkleTree.leafHash(lineBytes)
      let size = try integer(object, "treeSize", proof)
      let index = try integer(object, "leafIndex", proof)
      guard size == head.size else {
        throw TreeError.mismatch(
          problem: "'\(proof)' proves against a tree of \(size) events; the note signs "
            + "\(head.size): make the proof with --head \(head.size)")
      }
      if let stated = object["leafHash"]?.stringValue, stated != SHA256.hex(leafHash) {
        throw TreeError.mismatch(
          problem: "the line in '\(line)' hashes to leaf \(SHA256.hex(leafHash)), not the "
            + "proof's \(stated): the line is not the one proven (a byte differs)")
      }
      try MerkleTree.verifyInclusion(
        leafHash: leafHash, index: index, size: size, path: try hashes(object, proof),
        root: head.root)
      invocation.terminal.write(
        "ok: the line (seq \(index + 1)) is in the tree of \(head.size) events signed by "
          + "'\(verifier.name)' (\(head.origin))\n")
    } else if let consistency, let oldNote {
      let old = try openNote(oldNote, verifier: verifier)
      let object = try readProof(consistency)
      let fromSize = try integer(object, "fromSize", consistency)
      let toSize = try integer(object, "toSize", consistency)
      guard fromSize == old.size, toSize == head.size else {
        throw TreeError.mismatch(
          problem: "'\(consistency)' proves \(fromSize) to \(toSize) events; the notes sign "
            + "\(old.size) and \(head.size)")
      }
      try MerkleTree.verifyConsistency(
        oldSize: old.size, newSize: head.size, oldRoot: old.root, newRoot: head.root,
        path: try hashes(object, consistency))
      invocation.terminal.write(
        "ok: the tree of \(old.size) events is a prefix of the tree of \(head.size) events, "
          + "both signed by '\(verifier.name)'\n")
    } else {
      throw UsageError(
        inclusionGiven
          ? "'--line' and '--proof' go together: give both"
          : "'--consistency' and '--old-note' go together: give both")
    }
    return .success
  }

  static func read(_ path: String, what: String) throws -> [UInt8] {
    guard let data = FileManager.default.contents(atPath: path) else {
      throw InputError.unavailable("cannot read the \(what) file '\(path)'")
    }
    return [UInt8](data)
  }

  /// The verifier key given inline, or the one in the file it names.
  static func readVerifier(_ text: String) throws -> SignedNote.Verifier {
    if !text.contains("+"), let data = FileManager.default.contents(atPath: text) {
      return try SignedNote.Verifier(verifierKey: String(decoding: data, as: UTF8.self))
    }
    return try SignedNote.Verifier(verifierKey: text)
  }

  /// The checkpoint in the signed note file `path`, its signature checked.
  static func openNote(_ path: String, verifier: SignedNote.Verifier) throws -> Checkpoint {
    let bytes = try read(path, what: "signed note")
    do {
      return try Checkpoint(
        text: SignedNote.open(String(decoding: bytes, as: UTF8.self), verifier: verifier))
    } catch {
      switch error {
      case .mismatch(let problem): throw TreeError.mismatch(problem: "'\(path)': \(problem)")
      case .invalidInput(let problem):
        throw TreeError.invalidInput(problem: "'\(path)': \(problem)")
      }
    }
  }

  static func readProof(_ path: String) throws -> JSONObject {
    let bytes = try read(path, what: "proof")
    guard let object = try? JSONValue.parse(bytes).objectValue else {
      throw TreeError.invalidInput(
        problem: "'\(path)': expected a JSON object as 'replay prove --json' prints")
    }
    return object
  }

  static func integer(_ object: JSONObject, _ key: String, _ path: String) throws -> Int64 {
    guard let value = object[key]?.int64Value else {
      throw TreeError.invalidInput(problem: "'\(path)': expected a whole number \"\(key)\"")
    }
    return value
  }

  static func hashes(_ object: JSONObject, _ path: String) throws -> [[UInt8]] {
    guard let items = object["path"]?.arrayValue else {
      throw TreeError.invalidInput(problem: "'\(path)': expected \"path\", an array of hashes")
    }
    return try items.map { item in
      guard let text = item.stringValue, let hash = SHA256.bytes(fromHex: text),
        hash.count == MerkleTree.hashByteCount
      else {
        throw TreeError.invalidInput(
          problem: "'\(path)': a path entry is not 64 hex digits: \(item.snippet)")
      }
      return hash
    }
  }
}
