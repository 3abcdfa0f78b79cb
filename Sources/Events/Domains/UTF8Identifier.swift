/// An entity's id, which is its text's UTF-8 bytes: two ids are equal exactly when their bytes
/// are, hash by their bytes, and order by their bytes.
///
/// `String`'s `==` is canonical equivalence, so `"é"` (U+00E9) and `"e\u{301}"` would be one id
/// to a `Set` and two to the log, whose streams (`contact-é`, `contact-e\u{301}`) differ by
/// bytes. Ids follow the log: they are two entities everywhere, and byte order keeps `<`
/// consistent with `==`. For text in NFC (all ASCII ids are) byte order is `String`'s order.
/// A `ByteKeyedTable` finds ids by their bytes straight from a log line.
public protocol UTF8Identifier: Hashable, Comparable {
  /// The id as written.
  var rawValue: String { get }
}

extension UTF8Identifier {
  /// Whether the two ids have the same UTF-8 bytes.
  @inlinable
  public static func == (lhs: Self, rhs: Self) -> Bool {
    UTF8Bytes.equal(lhs.rawValue, rhs.rawValue)
  }

  /// Hashes the id's UTF-8 bytes.
  @inlinable
  public func hash(into hasher: inout Hasher) {
    var text = rawValue
    text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    // A terminator, as `String` hashes one, so that ids inside a larger value stay apart.
    hasher.combine(0xFF as UInt8)
  }

  /// Whether `lhs`'s UTF-8 bytes sort before `rhs`'s.
  @inlinable
  public static func < (lhs: Self, rhs: Self) -> Bool {
    UTF8Bytes.compare(lhs.rawValue, rhs.rawValue) < 0
  }
}

extension ContactID: UTF8Identifier {}
extension StateName: UTF8Identifier {}
extension ZipCode: UTF8Identifier {}
extension ObservationID: UTF8Identifier {}
extension AnimalID: UTF8Identifier {}
extension LocationID: UTF8Identifier {}
