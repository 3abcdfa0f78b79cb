import SwiftShims

/// Parses JSON number literals into `Double`s without allocating: the log's replay reads
/// coordinates by the million.
///
/// Most literals take Clinger's fast path: when the significant digits fit in 53 bits and the
/// power of ten is at most 22, `digits × 10^e` (or `÷ 10^-e`) is one correctly rounded IEEE
/// operation on exact operands, so it is the correctly rounded value. Anything else goes to the
/// standard library's own parser (`_swift_stdlib_strtod_clocale` from the toolchain's SwiftShims,
/// which `Double(String)` calls: `strtod` in the "C" locale, whatever the process's locale) on a
/// NUL-terminated copy in a stack buffer, so no `String` is made.
@usableFromInline
enum DecimalParsing {
  /// 10^0 ... 10^22, all exact in a `Double`.
  @usableFromInline
  static let powersOfTen: [Double] = (0...22).map { exponent in
    var value = 1.0
    for _ in 0..<exponent { value *= 10 }
    return value
  }

  /// The value of the number literal at `bytes` (already checked against JSON's grammar).
  @inlinable @inline(__always)
  static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    if let value = fastPath(bytes) { return value }
    return slowPath(bytes)
  }

  /// Clinger's fast path, or `nil` when it does not apply.
  @usableFromInline
  static func fastPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    var index = 0
    let count = bytes.count
    var negative = false
    if index < count, bytes[index] == 0x2D {
      negative = true
      index += 1
    }
    var significand: UInt64 = 0
    var digits = 0
    var exponent = 0
    // Integer part.
    while index < count, bytes[index] &- 0x30 < 10 {
      if digits < 19 {
        significand = significand &* 10 &+ UInt64(bytes[index] &- 0x30)
        if significand != 0 { digits += 1 }
      } else {
        return nil
      }
      index += 1
    }
    // Fraction.
    if index < count, bytes[index] == 0x2E {
      index += 1
      while index < count, bytes[index] &- 0x30 < 10 {
        if digits < 19 {
          significand = significand &* 10 &+ UInt64(bytes[index] &- 0x30)
          if significand != 0 { digits += 1 }
          exponent -= 1
        } else {
          return nil
        }
        index += 1
      }
    }
    // Exponent.
    if index < count, bytes[index] | 0x20 == 0x65 {
      index += 1
      var exponentNegative = false
      if index < count, bytes[index] == 0x2B || bytes[index] == 0x2D {
        exponentNegative = bytes[index] == 0x2D
        index += 1
      }
      var value = 0
      while index < count, bytes[index] &- 0x30 < 10 {
        value = value * 10 + Int(bytes[index] &- 0x30)
        if value > 10_000 { return nil }
        index += 1
      }
      exponent += exponentNegative ? -value : value
    }
    guard index == count, significand <= 1 << 53 else { return nil }
    var value = Double(significand)
    if exponent == 0 {
      // Exact already.
    } else if exponent > 0, exponent <= 22 {
      value *= powersOfTen[exponent]
    } else if exponent < 0, exponent >= -22 {
      value /= powersOfTen[-exponent]
    } else {
      return nil
    }
    return negative ? -value : value
  }

  @usableFromInline
  static func slowPath(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
    guard bytes.count < 512 else {
      return Double(String(decoding: bytes, as: UTF8.self))
    }
    return withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { buffer in
      for index in 0..<bytes.count { buffer[index] = CChar(bitPattern: bytes[index]) }
      buffer[bytes.count] = 0
      guard let base = buffer.baseAddress else { return Double?.none }
      var value = 0.0
      guard let end = _swift_stdlib_strtod_clocale(base, &value),
        UnsafePointer(base).distance(to: end) == bytes.count
      else { return Double?.none }
      return value
    }
  }
}
