import Foundation
import Testing

@testable import Events

/// Throughput of the AEAD, for the numbers in the notes of issue 13; off unless
/// `EVENTS_CRYPTO_BENCHMARK=1` (run it in release:
/// `EVENTS_CRYPTO_BENCHMARK=1 swift test -c release --filter ChaCha20Poly1305Throughput`).
@Suite(.enabled(if: ProcessInfo.processInfo.environment["EVENTS_CRYPTO_BENCHMARK"] == "1"))
struct ChaCha20Poly1305ThroughputTests {
  @Test(arguments: [64, 300, 4096])
  func sealAndOpenThroughput(messageLength: Int) throws {
    let key = try ChaCha20Poly1305.Key.random()
    let nonce = try ChaCha20Poly1305.Nonce.random()
    let plaintext = [UInt8](repeating: 0x61, count: messageLength)
    let associatedData = [UInt8](repeating: 0x62, count: 40)
    var sealed = [UInt8](repeating: 0, count: messageLength + 16)
    var opened = [UInt8](repeating: 0, count: messageLength)
    let totalBytes = 64 << 20
    let rounds = totalBytes / messageLength
    let clock = ContinuousClock()
    let sealTime = try clock.measure {
      try plaintext.withUnsafeBytes { plain in
        try associatedData.withUnsafeBytes { data in
          try sealed.withUnsafeMutableBytes { output in
            for _ in 0..<rounds {
              try ChaCha20Poly1305.seal(
                plain, key: key, nonce: nonce, associatedData: data, into: output)
            }
          }
        }
      }
    }
    let openTime = try clock.measure {
      try sealed.withUnsafeBytes { input in
        try associatedData.withUnsafeBytes { data in
          try opened.withUnsafeMutableBytes { output in
            for _ in 0..<rounds {
              try ChaCha20Poly1305.open(
                input, key: key, nonce: nonce, associatedData: data, into: output)
            }
          }
        }
      }
    }
    #expect(opened == plaintext)
    func rate(_ duration: Duration) -> String {
      let seconds =
        Double(duration.components.seconds)
        + Double(duration.components.attoseconds) / 1e18
      let megabytes = Double(rounds * messageLength) / 1e6
      return String(
        format: "%.0f MB/s (%.2f M messages/s)", megabytes / seconds,
        Double(rounds) / seconds / 1e6)
    }
    print(
      "ChaCha20-Poly1305, \(messageLength)-byte messages, 40 bytes of associated data: "
        + "seal \(rate(sealTime)), open \(rate(openTime))")
  }
}
