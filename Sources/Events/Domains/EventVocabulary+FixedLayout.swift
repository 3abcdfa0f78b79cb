#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

// Replay's shortcuts for the payloads it meets most, read in the exact layout the engine writes
// (keys in `encode(to:)` order, no whitespace, no escapes, no optional `source`).
//
// Each initialiser either reads the whole payload and leaves the cursor just after it, or
// returns `nil` with the cursor untouched, and the general decoder reads the payload instead, so
// any other shape still decodes (or fails) exactly as before. Values are checked as their
// types' own initialisers check them, on the bytes: a shortcut only accepts what those would
// accept unchanged (ASCII ids without surrounding spaces, digit-only zip codes, ...) and leaves
// everything else, valid or not, to the general path. The results are identical to the general
// lenient decoder's: `FixedLayoutTests` checks both paths against each other.

extension JSONCursor {
  /// `{"id":"<identifier>"}`: the id.
  mutating func fixedIdentifierOnly() -> String? {
    var copy = self
    guard copy.skipExactly("{\"id\":"), let id = copy.plainIdentifier(), copy.skipExactly("}")
    else { return nil }
    self = copy
    return id
  }

  /// A zip code of 5 digits or ZIP+4, as `ZipCode.init(_:)` accepts it.
  @inline(__always)
  mutating func fixedZipCode() -> ZipCode? {
    let saved = position
    guard let (start, count) = printableASCIIContent() else { return nil }
    let bytes = contentBytes(start: start, count: count)
    let isValid: Bool
    switch count {
    case 5: isValid = bytes.allSatisfy { $0 &- 0x30 < 10 }
    case 10:
      isValid =
        bytes[5] == 0x2D && bytes[..<5].allSatisfy { $0 &- 0x30 < 10 }
        && bytes[6...].allSatisfy { $0 &- 0x30 < 10 }
    default: isValid = false
    }
    guard isValid else {
      position = saved
      return nil
    }
    return ZipCode(unchecked: makeString(start: start, count: count))
  }

  /// An observation id: 12 lowercase hex digits.
  @inline(__always)
  mutating func fixedObservationID() -> ObservationID? {
    let saved = position
    guard let (start, count) = printableASCIIContent(), count == 12,
      contentBytes(start: start, count: count).allSatisfy({ $0 &- 0x30 < 10 || $0 &- 0x61 < 6 })
    else {
      position = saved
      return nil
    }
    return ObservationID(unchecked: makeString(start: start, count: count))
  }

  /// A string without escapes, made as `readString` makes it.
  @inline(__always)
  mutating func fixedText() -> String? {
    guard let (start, count, _) = plainStringContent() else { return nil }
    return makeString(start: start, count: count)
  }

  /// A number, read as `decodeDouble` reads it: plain decimals (`-64.324401`) in one pass,
  /// with `DecimalParsing`'s fast-path arithmetic; anything else through `readDouble`.
  @inline(__always)
  mutating func fixedDouble() -> Double? {
    if let value = plainDecimal() { return value }
    return try? readDouble()
  }

  /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?` with at most 19 significant digits, a significand within
  /// 2^53 and at most 22 fraction digits, computed exactly as `DecimalParsing.fastPath` computes
  /// it; `nil` (cursor untouched) for anything else, exponents included.
  @inline(__always)
  mutating func plainDecimal() -> Double? {
    var index = position
    let negative = index < end && base[index] == 0x2D
    if negative { index += 1 }
    guard index < end, base[index] &- 0x30 < 10 else { return nil }
    if base[index] == 0x30, index + 1 < end, base[index + 1] &- 0x30 < 10 { return nil }
    var significand: UInt64 = 0
    var digits = 0
    var exponent = 0
    while index < end, base[index] &- 0x30 < 10 {
      significand = significand &* 10 &+ UInt64(base[index] &- 0x30)
      if significand != 0 { digits += 1 }
      index += 1
    }
    if index < end, base[index] == 0x2E {
      index += 1
      guard index < end, base[index] &- 0x30 < 10 else { return nil }
      while index < end, base[index] &- 0x30 < 10 {
        significand = significand &* 10 &+ UInt64(base[index] &- 0x30)
        if significand != 0 { digits += 1 }
        exponent -= 1
        index += 1
      }
    }
    guard digits <= 19, significand <= 1 << 53, exponent >= -22,
      index >= end || base[index] | 0x20 != 0x65
    else { return nil }
    var value = Double(significand)
    if exponent < 0 { value /= DecimalParsing.powersOfTen[-exponent] }
    position = index
    return negative ? -value : value
  }
}

extension EventVocabulary {
  /// Replay's shortcut for its commonest events, `ContactFavorited` and `ContactUnfavorited`
  /// (schema 1) in the writer's layout `{"id":"<id>"}`, with the id as `ContactID(fixedLayout:)`
  /// takes it: whether the event makes the contact a favourite, and the id's UTF-8 bytes, so
  /// that the contact can be found without making a `String` or a `DomainEvent`.
  ///
  /// - Returns: `nil`, with the cursor untouched, for any other type, version or shape; `decode`
  ///   then reads the payload as usual. Otherwise the cursor is left just after the payload.
  @inlinable
  public static func favoriteToggle(
    type: UnsafeBufferPointer<UInt8>, schemaVersion: Int, data cursor: inout JSONCursor
  ) -> (isFavorite: Bool, contactID: UnsafeBufferPointer<UInt8>)? {
    let isFavorite: Bool
    switch type.count {
    case 16: isFavorite = true
    case 18: isFavorite = false
    default: return nil
    }
    guard schemaVersion == 1, let base = type.baseAddress,
      isFavorite
        ? memcmp(base, ("ContactFavorited" as StaticString).utf8Start, 16) == 0
        : memcmp(base, ("ContactUnfavorited" as StaticString).utf8Start, 18) == 0
    else { return nil }
    var copy = cursor
    guard copy.skipExactly("{\"id\":"), let (start, count) = copy.plainIdentifierContent(),
      copy.skipExactly("}")
    else { return nil }
    cursor = copy
    return (isFavorite, copy.contentBytes(start: start, count: count))
  }
}

extension ContactID {
  /// `{"id":"<id>"}`, both favourite events' payload.
  init?(fixedLayout cursor: inout JSONCursor) {
    guard let id = cursor.fixedIdentifierOnly() else { return nil }
    self.init(unchecked: id)
  }
}

extension LocationMoved {
  /// `{"id":"<id>","coordinate":{"latitude":<number>,"longitude":<number>}}`.
  init?(fixedLayout cursor: inout JSONCursor) {
    var copy = cursor
    guard copy.skipExactly("{\"id\":"), let id = copy.plainIdentifier(),
      copy.skipExactly(",\"coordinate\":{\"latitude\":"), let latitude = copy.fixedDouble(),
      copy.skipExactly(",\"longitude\":"), let longitude = copy.fixedDouble(),
      copy.skipExactly("}}"),
      let coordinate = try? Coordinate(latitude: latitude, longitude: longitude)
    else { return nil }
    cursor = copy
    self.init(id: LocationID(unchecked: id), coordinate: coordinate)
  }
}

extension LocationRemoved {
  /// `{"id":"<id>"}`.
  init?(fixedLayout cursor: inout JSONCursor) {
    guard let id = cursor.fixedIdentifierOnly() else { return nil }
    self.init(id: LocationID(unchecked: id))
  }
}

extension LocationRenamed {
  /// `{"id":"<id>","name":"<name>"}`.
  init?(fixedLayout cursor: inout JSONCursor) {
    var copy = cursor
    guard copy.skipExactly("{\"id\":"), let id = copy.plainIdentifier(),
      copy.skipExactly(",\"name\":"), let name = copy.fixedText(), copy.skipExactly("}")
    else { return nil }
    cursor = copy
    self.init(id: LocationID(unchecked: id), name: name)
  }
}

extension ZipCodeModified {
  /// `{"state":"<name>","from":"<zip code>","to":"<zip code>"}`.
  init?(fixedLayout cursor: inout JSONCursor) {
    var copy = cursor
    guard copy.skipExactly("{\"state\":"), let state = copy.plainIdentifier(),
      copy.skipExactly(",\"from\":"), let from = copy.fixedZipCode(),
      copy.skipExactly(",\"to\":"), let to = copy.fixedZipCode(), copy.skipExactly("}")
    else { return nil }
    cursor = copy
    self.init(state: StateName(unchecked: state), from: from, to: to)
  }
}

extension JSONCursor {
  /// `{"state":"<name>","zipCode":"<zip code>"}`, the payload of zip codes added (by a user)
  /// and removed.
  mutating func fixedStateAndZipCode() -> (StateName, ZipCode)? {
    var copy = self
    guard copy.skipExactly("{\"state\":"), let state = copy.plainIdentifier(),
      copy.skipExactly(",\"zipCode\":"), let zipCode = copy.fixedZipCode(), copy.skipExactly("}")
    else { return nil }
    self = copy
    return (StateName(unchecked: state), zipCode)
  }
}

extension ObservationRemoved {
  /// `{"id":"<observation id>"}`.
  init?(fixedLayout cursor: inout JSONCursor) {
    var copy = cursor
    guard copy.skipExactly("{\"id\":"), let id = copy.fixedObservationID(), copy.skipExactly("}")
    else { return nil }
    cursor = copy
    self.init(id: id)
  }
}

extension ObservationRevised {
  /// `{"id":"<observation id>"` then any of `"classification"`, `"title"`, `"description"` and
  /// `"date"` in that order, then `}`.
  init?(fixedLayout cursor: inout JSONCursor) {
    var copy = cursor
    guard copy.skipExactly("{\"id\":"), let id = copy.fixedObservationID() else { return nil }
    var revision = ObservationRevised(id: id)
    if copy.skipExactly(",\"classification\":") {
      guard let text = copy.fixedText(), let value = Classification(rawValue: text) else {
        return nil
      }
      revision.classification = value
    }
    if copy.skipExactly(",\"title\":") {
      guard let title = copy.fixedText() else { return nil }
      revision.title = title
    }
    if copy.skipExactly(",\"description\":") {
      guard let description = copy.fixedText() else { return nil }
      revision.description = description
    }
    if copy.skipExactly(",\"date\":\"") {
      guard copy.position + 25 <= copy.end, copy.base[copy.position + 24] == 0x22,
        let date = Timestamp.parseLogForm(
          copy.contentBytes(start: copy.position, count: 24))
      else { return nil }
      copy.position += 25
      revision.date = date
    }
    guard copy.skipExactly("}") else { return nil }
    cursor = copy
    self = revision
  }
}
