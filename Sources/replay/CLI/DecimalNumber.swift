/// Numbers typed on the command line are decimal: an optional sign, digits with an optional
/// fraction, an optional exponent (`-34.98`, `+1`, `.5`, `2.5e3`).
///
/// Swift's `Double(_:)` also reads hexadecimal (`0x10` is 16), `nan`, `inf` and `infinity`;
/// none of those is what a person typing a coordinate or a rate means, so they are rejected
/// before `Double(_:)` converts the text.
enum DecimalNumber {
  /// The value of `text`, or `nil` when it is not a decimal number.
  static func parse(_ text: String) -> Double? {
    var bytes = text.utf8[...]
    if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
      bytes = bytes.dropFirst()
    }
    let integerDigits = bytes.prefix { isDigit($0) }.count
    bytes = bytes.dropFirst(integerDigits)
    var fractionDigits = 0
    if bytes.first == UInt8(ascii: ".") {
      bytes = bytes.dropFirst()
      fractionDigits = bytes.prefix { isDigit($0) }.count
      bytes = bytes.dropFirst(fractionDigits)
    }
    guard integerDigits + fractionDigits > 0 else { return nil }
    if let marker = bytes.first, marker == UInt8(ascii: "e") || marker == UInt8(ascii: "E") {
      bytes = bytes.dropFirst()
      if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
        bytes = bytes.dropFirst()
      }
      let exponentDigits = bytes.prefix { isDigit($0) }.count
      guard exponentDigits > 0 else { return nil }
      bytes = bytes.dropFirst(exponentDigits)
    }
    guard bytes.isEmpty else { return nil }
    return Double(text)
  }

  private static func isDigit(_ byte: UInt8) -> Bool {
    byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
  }
}
