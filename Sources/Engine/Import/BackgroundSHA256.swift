import Dispatch
import Events
import Foundation

/// The SHA-256 of some bytes, hashed on a thread of its own while the caller goes on (an
/// importer parses the source meanwhile: at about 320 MB/s here, the digest of a 4 MB source
/// took a tenth of a contacts import). Small inputs are hashed at once, on the caller's thread.
final class BackgroundSHA256: Sendable {
  /// Below this, a thread costs more than it saves.
  static let threadThreshold = 1 << 16

  /// Written once by the hashing thread before it signals `done`; read after waiting on it
  /// (the semaphore orders the two).
  private final class Result: @unchecked Sendable {
    var digest: [UInt8] = []
  }

  private let result = Result()
  private let done = DispatchSemaphore(value: 0)

  init(_ bytes: [UInt8]) {
    guard bytes.count >= Self.threadThreshold else {
      result.digest = SHA256.hash(bytes)
      done.signal()
      return
    }
    let result = self.result
    let done = self.done
    Thread.detachNewThread {
      result.digest = SHA256.hash(bytes)
      done.signal()
    }
  }

  /// The digest, once hashed (waits for the thread). Called once.
  func value() -> [UInt8] {
    done.wait()
    return result.digest
  }
}
