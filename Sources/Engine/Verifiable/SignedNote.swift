import Events
import Foundation

/// Signed notes in the format of Go's checksum database (golang.org/x/mod/sumdb/note, C2SP
/// signed-note) with Ed25519 keys, and the key formats that go with them.
///
/// A note is its text (UTF-8, every line ending in `\n`), a blank line, then one line per
/// signature: `— <name> <base64(key hash ‖ signature)>`, where the signature is Ed25519 over
/// the text and the key hash is the first four bytes, big-endian, of
/// SHA-256(name ‖ `\n` ‖ 0x01 ‖ public key).
///
/// - Verifier key (public): `<name>+<key hash, 8 hex digits>+<base64(0x01 ‖ public key)>`.
/// - Private key: `PRIVATE+KEY+<name>+<key hash>+<base64(0x01 ‖ 32-byte seed)>`.
///
/// A name is non-empty UTF-8 with no space and no `+`.
package enum SignedNote {
  /// The algorithm byte of Ed25519 keys.
  static let ed25519Algorithm: UInt8 = 1
  /// What begins each signature line: an em dash and a space.
  static let signaturePrefix = "\u{2014} "

  /// The key hash of a key named `name` with the public key `publicKey`.
  public static func keyHash(name: String, publicKey: [UInt8]) -> UInt32 {
    let digest = SHA256.hash(Array(name.utf8) + [0x0A, ed25519Algorithm] + publicKey)
    return digest[0..<4].reduce(0) { $0 << 8 | UInt32($1) }
  }

  static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && !name.contains("+") && !name.contains(where: { $0.isWhitespace })
  }

  static func hex8(_ value: UInt32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: 8 - digits.count) + digits
  }

  /// Standard base64 with padding, decoded only when `text` is exactly how it encodes.
  static func decodeBase64(_ text: Substring) -> [UInt8]? {
    guard let data = Data(base64Encoded: String(text)), data.base64EncodedString() == text
    else { return nil }
    return Array(data)
  }

  /// A signing key with its name.
  public struct Signer: Sendable {
    public let name: String
    public let privateKey: Ed25519.PrivateKey

    /// A new key named `name`, from the system's secure random source.
    /// - Throws: `TreeError.invalidInput` for a name with a space or a `+`; `CryptoError` when
    ///   the random source fails.
    public static func generate(name: String) throws -> Signer {
      guard isValidName(name) else {
        throw TreeError.invalidInput(
          problem: "key name '\(name)': expected a non-empty name without spaces or '+'")
      }
      return Signer(name: name, privateKey: try Ed25519.PrivateKey.generate())
    }

    init(name: String, privateKey: Ed25519.PrivateKey) {
      self.name = name
      self.privateKey = privateKey
    }

    /// Reads a private key in the format `PRIVATE+KEY+<name>+<hash>+<base64>`.
    /// - Throws: `TreeError.invalidInput` naming the part that is wrong.
    public init(privateKeyText: String) throws(TreeError) {
      let text = privateKeyText.trimmingCharacters(in: .whitespacesAndNewlines)
      // The base64 may hold '+' too: it is everything after the fourth.
      let parts = text.split(separator: "+", maxSplits: 4, omittingEmptySubsequences: false)
      guard parts.count == 5, parts[0] == "PRIVATE", parts[1] == "KEY" else {
        throw .invalidInput(
          problem: "private key: expected 'PRIVATE+KEY+<name>+<hash>+<base64>' (as 'replay "
            + "keygen' writes), found \(parts.count) '+'-separated parts")
      }
      let name = String(parts[2])
      guard isValidName(name), parts[3].count == 8, let hash = UInt32(parts[3], radix: 16),
        let key = decodeBase64(parts[4]), key.count == 33, key[0] == ed25519Algorithm,
        let privateKey = try? Ed25519.PrivateKey(seed: Array(key[1...]))
      else {
        throw .invalidInput(
          problem: "private key '\(name)': expected an 8-digit hex hash and the base64 of "
            + "0x01 and a 32-byte Ed25519 seed")
      }
      guard SignedNote.keyHash(name: name, publicKey: privateKey.publicKey.bytes) == hash else {
        throw .invalidInput(
          problem: "private key '\(name)': its hash \(parts[3]) is not the hash of its key")
      }
      self.init(name: name, privateKey: privateKey)
    }

    public var keyHash: UInt32 {
      SignedNote.keyHash(name: name, publicKey: privateKey.publicKey.bytes)
    }

    /// `PRIVATE+KEY+<name>+<hash>+<base64(0x01 ‖ seed)>`.
    public var privateKeyText: String {
      "PRIVATE+KEY+\(name)+\(hex8(keyHash))+"
        + Data([ed25519Algorithm] + privateKey.seed).base64EncodedString()
    }

    /// `<name>+<hash>+<base64(0x01 ‖ public key)>`: what a verifier needs.
    public var verifierKey: String {
      "\(name)+\(hex8(keyHash))+"
        + Data([ed25519Algorithm] + privateKey.publicKey.bytes).base64EncodedString()
    }

    /// The signed note of `text` (each line ending in `\n`): text, blank line, signature line.
    public func sign(_ text: String) -> String {
      var signed = [UInt8](repeating: 0, count: 4)
      for index in 0..<4 { signed[index] = UInt8(truncatingIfNeeded: keyHash >> (24 - 8 * index)) }
      signed += privateKey.signature(for: Array(text.utf8))
      return text + "\n" + signaturePrefix + name + " " + Data(signed).base64EncodedString() + "\n"
    }
  }

  /// A verifying key with its name.
  public struct Verifier: Sendable, Equatable {
    public let name: String
    public let keyHash: UInt32
    public let publicKey: Ed25519.PublicKey

    /// Reads a verifier key, `<name>+<hash>+<base64(0x01 ‖ public key)>`.
    /// - Throws: `TreeError.invalidInput` naming the part that is wrong.
    public init(verifierKey: String) throws(TreeError) {
      let text = verifierKey.trimmingCharacters(in: .whitespacesAndNewlines)
      let parts = text.split(separator: "+", maxSplits: 2, omittingEmptySubsequences: false)
      guard parts.count == 3, isValidName(String(parts[0])) else {
        throw .invalidInput(
          problem: "verifier key: expected '<name>+<hash>+<base64>' (as 'replay keygen' "
            + "prints), found '\(text.prefix(80))'")
      }
      let name = String(parts[0])
      guard parts[1].count == 8, let hash = UInt32(parts[1], radix: 16),
        let key = decodeBase64(parts[2]), key.count == 33, key[0] == ed25519Algorithm
      else {
        throw .invalidInput(
          problem: "verifier key '\(name)': expected an 8-digit hex hash and the base64 of "
            + "0x01 and a 32-byte Ed25519 public key")
      }
      guard SignedNote.keyHash(name: name, publicKey: Array(key[1...])) == hash else {
        throw .invalidInput(
          problem: "verifier key '\(name)': its hash \(parts[1]) is not the hash of its key")
      }
      do {
        self.publicKey = try Ed25519.PublicKey(bytes: Array(key[1...]))
      } catch {
        throw .invalidInput(problem: "verifier key '\(name)': \(error)")
      }
      self.name = name
      self.keyHash = hash
    }
  }

  /// Checks the signed note `note` against `verifier` and returns its text.
  /// - Throws: `TreeError.invalidInput` when `note` is not a signed note;
  ///   `TreeError.mismatch` when no signature line is by `verifier`'s key, or its signature
  ///   does not verify (the text or the signature was changed).
  public static func open(_ note: String, verifier: Verifier) throws(TreeError) -> String {
    guard let split = note.range(of: "\n\n", options: .backwards), note.hasSuffix("\n") else {
      throw .invalidInput(
        problem: "signed note: expected text, a blank line and signature lines, each ending "
          + "in a newline")
    }
    let text = String(note[..<note.index(after: split.lowerBound)])
    if let control = note.unicodeScalars.first(where: { $0.value < 0x20 && $0 != "\n" }) {
      throw .invalidInput(
        problem: "signed note: a control character U+\(hex8(control.value).suffix(4)) in it")
    }
    var sawName = false
    for line in note[split.upperBound...].split(separator: "\n") {
      guard line.hasPrefix(signaturePrefix) else {
        throw .invalidInput(
          problem: "signed note: a signature line must begin with '— ', found '\(line.prefix(40))'")
      }
      let fields = line.dropFirst(signaturePrefix.count).split(separator: " ")
      guard fields.count == 2, let signed = decodeBase64(fields[1]), signed.count > 4 else {
        throw .invalidInput(
          problem: "signed note: expected '— <name> <base64>' on a signature line, found "
            + "'\(line.prefix(60))'")
      }
      guard fields[0] == verifier.name else { continue }
      sawName = true
      let hash = signed[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
      guard hash == verifier.keyHash else { continue }
      guard verifier.publicKey.isValidSignature(Array(signed[4...]), for: Array(text.utf8)) else {
        throw .mismatch(
          problem: "signed note: the signature by '\(verifier.name)' (key \(hex8(hash))) does "
            + "not match the note's text: the text or the signature was changed")
      }
      return text
    }
    throw .mismatch(
      problem: sawName
        ? "signed note: signed by '\(verifier.name)' with another key, not \(hex8(verifier.keyHash))"
        : "signed note: no signature by '\(verifier.name)'; it is signed by "
          + note[split.upperBound...].split(separator: "\n").map {
            "'\($0.dropFirst(signaturePrefix.count).prefix { $0 != " " })'"
          }.joined(separator: ", "))
  }
}
