#if canImport(Darwin)
  import Darwin
#elseif canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// The operating system's cryptographically secure random source, for keys and nonces.
///
/// - On Darwin: `arc4random_buf`, which draws from the kernel's CSPRNG and cannot fail.
/// - On Linux: `getrandom(2)` with no flags (blocks only until the kernel's pool is first
///   initialised at boot), looped over interrupted calls (`EINTR`) and short reads. The C
///   library exposes it to Swift only by name (glibc 2.25+, musl 1.1.20+), so it is looked up
///   once with `dlsym`; where it is absent (older C libraries), or the kernel lacks it
///   (`ENOSYS`, before Linux 3.17), `/dev/urandom` is read instead, with the same loop.
/// - Elsewhere: Swift's `SystemRandomNumberGenerator`, documented as cryptographically secure.
///
/// Failures are thrown, never papered over with weaker randomness.
public enum SecureRandom {
  /// Fills `buffer` with random bytes.
  /// - Throws: ``CryptoError/randomSourceFailed(source:code:)`` if the system source fails.
  package static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError) {
    guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
    #if canImport(Darwin)
      arc4random_buf(base, buffer.count)
    #elseif os(Linux) && (canImport(Glibc) || canImport(Musl))
      if let getrandom = getrandomFunction {
        var filled = 0
        while filled < buffer.count {
          let result = getrandom(base + filled, buffer.count - filled, 0)
          if result > 0 {
            filled += result
          } else if result < 0 && errno == EINTR {
            continue
          } else if result < 0 && errno == ENOSYS {
            try fillFromDevice(UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            return
          } else {
            throw .randomSourceFailed(source: "getrandom", code: result < 0 ? errno : 0)
          }
        }
      } else {
        try fillFromDevice(buffer)
      }
    #else
      var generator = SystemRandomNumberGenerator()
      for index in 0..<buffer.count { buffer[index] = generator.next() }
      _ = base
    #endif
  }

  /// `count` random bytes.
  /// - Throws: ``CryptoError/randomSourceFailed(source:code:)`` if the system source fails.
  public static func bytes(count: Int) throws(CryptoError) -> [UInt8] {
    var bytes = [UInt8](repeating: 0, count: count)
    // `withUnsafeMutableBytes` rethrows untyped errors: carry the typed one out in a Result.
    let filled = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(CryptoError) in try fill(buffer) }
    }
    try filled.get()
    return bytes
  }

  #if os(Linux) && (canImport(Glibc) || canImport(Musl))
    /// `ssize_t getrandom(void *buffer, size_t length, unsigned int flags)`.
    private typealias GetRandom = @convention(c) (UnsafeMutableRawPointer?, Int, UInt32) -> Int

    /// The C library's `getrandom`, or nil where it has none; looked up once.
    private static let getrandomFunction: GetRandom? = {
      // A nil handle is RTLD_DEFAULT: search every object already loaded.
      guard let symbol = dlsym(nil, "getrandom") else { return nil }
      return unsafeBitCast(symbol, to: GetRandom.self)
    }()

    /// Reads `/dev/urandom` until `buffer` is full.
    private static func fillFromDevice(_ buffer: UnsafeMutableRawBufferPointer) throws(CryptoError)
    {
      guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
      var descriptor: Int32
      repeat {
        descriptor = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
      } while descriptor < 0
        && errno == EINTR
      guard descriptor >= 0 else { throw .randomSourceFailed(source: "/dev/urandom", code: errno) }
      defer { close(descriptor) }
      var filled = 0
      while filled < buffer.count {
        let result = read(descriptor, base + filled, buffer.count - filled)
        if result > 0 {
          filled += result
        } else if result < 0 && errno == EINTR {
          continue
        } else {
          throw .randomSourceFailed(source: "/dev/urandom", code: result < 0 ? errno : 0)
        }
      }
    }
  #endif
}
