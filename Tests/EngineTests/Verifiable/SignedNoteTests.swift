import Engine
import Events
import Foundation
import Testing

/// Signed notes and keys against golang.org/x/mod/sumdb/note's test vectors.
@Suite struct SignedNoteTests {
  static let privateKey =
    "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
  static let verifierKey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
  static let text =
    "If you think cryptography is the answer to your problem,\n"
    + "then you don't know what your problem is.\n"
  static let signed =
    text + "\n"
    + "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"

  @Test func goVectorSignsToTheSameNoteAndOpens() throws {
    let signer = try SignedNote.Signer(privateKeyText: Self.privateKey)
    #expect(signer.verifierKey == Self.verifierKey)
    #expect(signer.privateKeyText == Self.privateKey)
    #expect(signer.sign(Self.text) == Self.signed)
    let verifier = try SignedNote.Verifier(verifierKey: Self.verifierKey)
    #expect(try SignedNote.open(Self.signed, verifier: verifier) == Self.text)
  }

  @Test func aChangedTextOrSignatureIsRefusedNamingTheSigner() throws {
    let verifier = try SignedNote.Verifier(verifierKey: Self.verifierKey)
    let forged = Self.signed.replacingOccurrences(of: "cryptography", with: "a blockchain")
    #expect(throws: TreeError.self) { try SignedNote.open(forged, verifier: verifier) }
    do {
      _ = try SignedNote.open(forged, verifier: verifier)
    } catch {
      #expect("\(error)".contains("signature by 'PeterNeumann'"))
    }
    let other = try SignedNote.Signer.generate(name: "EnochRoot")
    let otherVerifier = try SignedNote.Verifier(verifierKey: other.verifierKey)
    #expect(throws: TreeError.self) { try SignedNote.open(Self.signed, verifier: otherVerifier) }
  }

  @Test func mangledKeysAreRefused() {
    let key = Array(Self.verifierKey.utf8)
    for index in stride(from: 0, to: key.count, by: 3) {
      var mangled = key
      mangled[index] &+= 1
      #expect(throws: TreeError.self) {
        try SignedNote.Verifier(verifierKey: String(decoding: mangled, as: UTF8.self))
      }
    }
    #expect(throws: TreeError.self) { try SignedNote.Signer(privateKeyText: Self.verifierKey) }
    #expect(throws: TreeError.self) { try SignedNote.Signer.generate(name: "with space") }
  }

  @Test func checkpointTextRoundTrips() throws {
    let checkpoint = Checkpoint(
      origin: "replay/sample.jsonl", size: 147, root: [UInt8](repeating: 7, count: 32))
    #expect(try Checkpoint(text: checkpoint.text) == checkpoint)
    #expect(throws: TreeError.self) { try Checkpoint(text: "origin\n0147\nAAAA\n") }
  }
}
