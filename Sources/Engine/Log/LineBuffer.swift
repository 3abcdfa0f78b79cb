/// Bytes a writer encodes a chunk's lines into, grown without being filled first.
///
/// An array cannot grow uninitialised: each line's room was appended as zeros, then trimmed to
/// what the line took, about 340 instructions a line of the 5,000 a batch import spends on one.
///
/// Unchecked `Sendable`: it lives in the log's locked state, and only the writer holding the
/// lock touches it.
final class LineBuffer: @unchecked Sendable {
  private(set) var base: UnsafeMutablePointer<UInt8>
  private(set) var capacity: Int
  /// How many bytes hold lines.
  private(set) var count = 0

  init(capacity: Int = 1 << 16) {
    self.capacity = max(capacity, 64)
    base = UnsafeMutablePointer<UInt8>.allocate(capacity: self.capacity)
  }

  deinit { base.deallocate() }

  /// The lines written so far.
  var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

  /// Where the next `room` bytes go, after making room for them; `commit` says how many of
  /// them were written.
  func reserve(_ room: Int) -> UnsafeMutablePointer<UInt8> {
    if count + room > capacity {
      var grown = capacity
      while grown < count + room { grown *= 2 }
      let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
      moved.update(from: base, count: count)
      base.deallocate()
      base = moved
      capacity = grown
    }
    return base + count
  }

  /// Takes in `written` bytes at the place `reserve` gave.
  func commit(_ written: Int) {
    count += written
  }

  /// Forgets the lines, keeping the memory.
  func removeAll() {
    count = 0
  }
}
