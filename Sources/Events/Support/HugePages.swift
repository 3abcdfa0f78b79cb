#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#endif

/// Large buffers that are filled once, backed by transparent huge pages where the kernel
/// offers them (Linux, `madvise` mode).
///
/// Memory fresh from the kernel costs a page fault per 4 KiB the first time it is written (a
/// trap and a zeroed page): loading a 100 MB checkpoint took 25 000 of them for the file's
/// bytes and as many again for the tables filled from it, more than the decoding itself. Advised
/// buffers fault once per 2 MiB. The advice is a hint: other systems, and kernels that decline
/// it, are unchanged.
///
/// - Note: SPI (`@_spi(Tables) import Events`), for the read models' tables and the checkpoint
///   reader.
@_spi(Tables)
public enum HugePages {
  /// Buffers smaller than this are left alone.
  public static let threshold = 4 << 20

  /// Advises the whole 2 MiB stretches inside `buffer`; call it before the first write.
  public static func advise(_ buffer: UnsafeMutableRawBufferPointer) {
    #if os(Linux)
      let hugePage = 2 << 20
      guard buffer.count >= threshold, let base = buffer.baseAddress else { return }
      let start = (Int(bitPattern: base) + hugePage - 1) & ~(hugePage - 1)
      let end = (Int(bitPattern: base) + buffer.count) & ~(hugePage - 1)
      guard end > start, let aligned = UnsafeMutableRawPointer(bitPattern: start) else { return }
      _ = madvise(aligned, end - start, MADV_HUGEPAGE)
    #endif
  }

  /// An empty array with room for `capacity` elements, advised when that room is large.
  public static func reserved<Element>(_: Element.Type = Element.self, capacity: Int) -> [Element] {
    guard capacity * MemoryLayout<Element>.stride >= threshold else {
      var array: [Element] = []
      array.reserveCapacity(capacity)
      return array
    }
    return [Element](unsafeUninitializedCapacity: capacity) { buffer, count in
      advise(UnsafeMutableRawBufferPointer(buffer))
      count = 0
    }
  }

  /// `count` copies of `value`, in a buffer advised when it is large.
  public static func array<Element>(repeating value: Element, count: Int) -> [Element] {
    guard count * MemoryLayout<Element>.stride >= threshold else {
      return [Element](repeating: value, count: count)
    }
    return [Element](unsafeUninitializedCapacity: count) { buffer, initialized in
      advise(UnsafeMutableRawBufferPointer(buffer))
      buffer.initialize(repeating: value)
      initialized = count
    }
  }
}
