import Events
import Foundation
import Testing

@testable import Engine

@Suite struct KeyStoreTests {
  @Test func keysAreDurableLinesReadBackAndErasureRemovesThemFromTheFile() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      var store = try KeyStore(logPath: log)
      #expect(store.keys.isEmpty)
      let first = try store.add(contact: "13")
      let second = try store.add(contact: "14")
      #expect(first.id != second.id)
      let reread = try KeyStore(logPath: log)
      #expect(reread.key(forContact: "13") == first)
      #expect(reread.key(forContact: "14") == second)
      let secret = first.key.withUnsafeBytes { SHA256.hex(Array($0)) }
      #expect(String(decoding: try fileBytes(store.path), as: UTF8.self).contains(secret))
      #expect(try store.erase(contact: "13") == 1)
      #expect(try store.erase(contact: "13") == 0)
      let after = String(decoding: try fileBytes(store.path), as: UTF8.self)
      #expect(!after.contains(secret))
      #expect(!after.contains(#""key":"\#(first.id)""#))
      let rereadAfter = try KeyStore(logPath: log)
      #expect(rereadAfter.key(forContact: "13") == nil)
      // The destroyed key is known as erased, a key the store never had as missing.
      #expect(rereadAfter.lookup(first.id) == .erased(contact: "13"))
      #expect(rereadAfter.lookup(second.id) == .present(second))
      #expect(rereadAfter.lookup(KeyStore.KeyID(rawValue: 42)) == .missing)
      #expect(rereadAfter.key(forContact: "14") == second)
      // A contact brought back gets a new key.
      let again = try store.add(contact: "13")
      #expect(again.id != first.id && again.key != first.key)
    }
  }

  @Test func aTornLastLineIsIgnoredThenCutByTheNextAdd() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      var store = try KeyStore(logPath: log)
      let kept = try store.add(contact: "1")
      var bytes = try fileBytes(store.path)
      let whole = bytes.count
      bytes += Array(#"{"key":"0011223344556677","contact":"2","sec"#.utf8)
      try writeBytes(bytes, to: store.path)
      var reread = try KeyStore(logPath: log)
      #expect(reread.keys.count == 1 && reread.key(forContact: "1") == kept)
      let added = try reread.add(contact: "3")
      let final = try KeyStore(logPath: log)
      #expect(final.keys.count == 2 && final.key(forContact: "3") == added)
      #expect(try fileBytes(store.path).count > whole)
      #expect(!String(decoding: try fileBytes(store.path), as: UTF8.self).contains("\"sec\n"))
    }
  }

  @Test func aDamagedLineOrHeaderStopsEveryone() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      var store = try KeyStore(logPath: log)
      _ = try store.add(contact: "1")
      _ = try store.add(contact: "2")
      let good = try fileBytes(store.path)
      // One changed byte in the middle line's secret.
      var damaged = good
      let marker = Array("\"secret\":\"".utf8)
      let index = try #require(
        good.indices.first { good[$0...].starts(with: marker) }.map { $0 + marker.count + 3 })
      damaged[index] = damaged[index] == UInt8(ascii: "0") ? UInt8(ascii: "1") : UInt8(ascii: "0")
      try writeBytes(damaged, to: store.path)
      #expect(throws: KeyStoreError.self) { try KeyStore(logPath: log) }
      // A header that is not ours.
      try writeBytes(Array("{\"format\":\"other\"}\n".utf8) + good, to: store.path)
      #expect(throws: KeyStoreError.self) { try KeyStore(logPath: log) }
    }
  }

  @Test func aStoreChangedByAnotherWriterIsNotCut() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      var mine = try KeyStore(logPath: log)
      _ = try mine.add(contact: "1")
      var theirs = try KeyStore(logPath: log)
      _ = try theirs.add(contact: "2")
      #expect(throws: KeyStoreError.self) { try mine.add(contact: "3") }
      #expect(try KeyStore(logPath: log).keys.count == 2)
    }
  }

  /// One key found from its own line, without reading the store: a present key, a destroyed
  /// one, and nothing for an unknown or damaged one (the whole store then answers).
  @Test func oneKeyIsFoundFromItsLineAlone() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      var store = try KeyStore(logPath: log)
      let kept = try store.add(contact: "1")
      let erased = try store.add(contact: "2")
      _ = try store.add(contact: "3")
      try store.erase(contact: "2")
      #expect(KeyStore.findLine(of: kept.id, inStoreAt: store.path) == .present(kept))
      #expect(KeyStore.findLine(of: erased.id, inStoreAt: store.path) == .erased(contact: "2"))
      #expect(KeyStore.findLine(of: KeyStore.KeyID(rawValue: 7), inStoreAt: store.path) == nil)
      let keys = OpenLog.named(log).keys
      #expect(try keys.lookup(kept.id) == .present(kept))
      #expect(try keys.lookup(KeyStore.KeyID(rawValue: 7)) == .missing)
      // A key line with a wrong checksum is not taken from its line; the whole store is read,
      // and names the damage.
      var bytes = try fileBytes(store.path)
      let text = String(decoding: bytes, as: UTF8.self)
      let secret = kept.key.withUnsafeBytes { SHA256.hex(Array($0)) }
      let range = try #require(text.range(of: secret))
      let offset = text.utf8.distance(from: text.startIndex, to: range.lowerBound)
      bytes[offset] = bytes[offset] == 0x30 ? 0x31 : 0x30
      try writeBytes(bytes, to: store.path)
      #expect(KeyStore.findLine(of: kept.id, inStoreAt: store.path) == nil)
      #expect(throws: EngineError.self) { try keys.lookup(kept.id) }
    }
  }

  /// The index a replay reads (`KeyStore.Index`) answers every lookup as the store does, and
  /// refuses every store the store refuses.
  @Test func theIndexAnswersAndRefusesAsTheStoreDoes() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      var store = try KeyStore(logPath: log)
      var entries: [KeyStore.Entry] = []
      for contact in 1...40 { entries.append(try store.add(contact: "\(contact)")) }
      try store.erase(contact: "7")
      try store.erase(contact: "21")
      // A key line written by hand with an escaped contact id: not the quick shape.
      let escaped = KeyStore.Entry(
        id: KeyStore.KeyID(rawValue: 0xABCD), contact: #"a"b"#, key: entries[0].key)
      var bytes = try fileBytes(store.path) + KeyStore.line(for: escaped)
      try writeBytes(bytes, to: store.path)
      let reread = try KeyStore(logPath: log)
      let index = try KeyStore.Index(logPath: log)
      var ids = entries.map(\.id) + [escaped.id, KeyStore.KeyID(rawValue: 99)]
      ids += reread.erasedKeys.keys
      for id in ids {
        #expect(try index.lookup(id) == reread.lookup(id), "key \(id)")
      }
      #expect(try index.lookup(escaped.id) == .present(escaped))
      #expect(try index.lookup(entries[6].id) == .erased(contact: "7"))
      // An absent store is an empty one.
      #expect(try KeyStore.Index(logPath: directory + "/other.jsonl").lookup(ids[0]) == .missing)
      // A torn last line is ignored by both.
      let good = bytes
      try writeBytes(good + Array(#"{"key":"0011223344556677","con"#.utf8), to: store.path)
      #expect(try KeyStore.Index(logPath: log).lookup(entries[0].id) == .present(entries[0]))
      // A key twice, a changed byte, a foreign header: refused by both.
      let first = try #require(good.firstIndex(of: 0x0A)) + 1
      let second = try #require(good[first...].firstIndex(of: 0x0A)) + 1
      let twice = good + Array(good[first..<second])
      var changed = good
      changed[first + 40] ^= 0x01
      let foreign = Array("{\"format\":\"other\"}\n".utf8) + good
      for refused in [twice, changed, foreign] {
        try writeBytes(refused, to: store.path)
        #expect(throws: KeyStoreError.self) { try KeyStore(logPath: log) }
        #expect(throws: KeyStoreError.self) { try KeyStore.Index(logPath: log) }
      }
      // A key line whose checksum holds but whose secret is not hex: indexed by its shape,
      // refused, naming its line, when its key is asked for.
      let bad =
        Array(#"{"key":"00000000000000aa","contact":"x","secret":""#.utf8)
        + Array(repeating: UInt8(ascii: "z"), count: 64) + [UInt8(ascii: "\"")]
      bytes =
        good + bad
        + Array(",\"crc\":\"\(KeyStore.checksumText(CRC32C.checksum(of: bad)))\"}\n".utf8)
      try writeBytes(bytes, to: store.path)
      #expect(throws: KeyStoreError.self) { try KeyStore(logPath: log) }
      let lenient = try KeyStore.Index(logPath: log)
      #expect(try lenient.lookup(entries[0].id) == .present(entries[0]))
      #expect(throws: KeyStoreError.self) {
        try lenient.lookup(KeyStore.KeyID(rawValue: 0xAA))
      }
    }
  }

  /// A store that cannot be read is named with the reason, by the store and by its index.
  @Test func anUnreadableStoreSaysWhy() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try FileManager.default.createDirectory(
        atPath: KeyStore.path(forLog: log), withIntermediateDirectories: false)
      let expected = KeyStoreError.unreadable(
        path: KeyStore.path(forLog: log), reason: "it is a directory, not a regular file")
      #expect(throws: expected) { try KeyStore(logPath: log) }
      #expect(throws: expected) { try KeyStore.Index(logPath: log) }
    }
  }

  /// An index read ahead (`prepareIndex`) answers as the store does, and one read ahead of a
  /// store that has changed since is not used.
  @Test func anIndexReadAheadIsUsedOnlyForTheStoreItRead() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      var store = try KeyStore(logPath: log)
      var entries: [KeyStore.Entry] = []
      for contact in 1...5 { entries.append(try store.add(contact: "\(contact)")) }
      let keys = OpenLog.named(log).keys
      keys.prepareIndex()
      for entry in entries {
        #expect(try keys.lookup(entry.id) == .present(entry))
      }
      // Another writer adds a key and destroys one: the index read before is stale.
      var other = try KeyStore(logPath: log)
      let added = try other.add(contact: "6")
      try other.erase(contact: "2")
      keys.prepareIndex()
      #expect(try keys.lookup(added.id) == .present(added))
      #expect(try keys.lookup(entries[1].id) == .erased(contact: "2"))
      #expect(try keys.lookup(entries[0].id) == .present(entries[0]))
    }
  }

  /// A key store's hex (lowercase only, read eight digits at a time): every byte value at every
  /// digit's place of a 64-digit key and of shorter runs is read, or refused, as one digit at a
  /// time would.
  @Test func everyByteAtEveryHexDigitIsReadOrRefusedAsOneDigitAtATimeWould() {
    func reference(_ digits: [UInt8]) -> [UInt8]? {
      guard digits.count % 2 == 0 else { return nil }
      var bytes: [UInt8] = []
      for pair in stride(from: 0, to: digits.count, by: 2) {
        var byte: UInt8 = 0
        for digit in digits[pair..<pair + 2] {
          switch digit {
          case 0x30...0x39: byte = byte << 4 | (digit - 0x30)
          case 0x61...0x66: byte = byte << 4 | (digit - 0x61 + 10)
          default: return nil
          }
        }
        bytes.append(byte)
      }
      return bytes
    }
    let key = Array("0123456789abcdeffedcba98765432100a1b2c3d4e5f60718293a4b5c6d7e8f9".utf8)
    for length in [64, 18, 16, 10, 8, 2, 0] {
      let text = Array(key.prefix(length))
      #expect(KeyStore.bytes(hex: String(decoding: text, as: UTF8.self)) == reference(text))
      for place in text.indices {
        for byte in UInt8.min...UInt8.max {
          var digits = text
          digits[place] = byte
          let read = digits.withUnsafeBytes { KeyStore.bytes(hexDigits: $0) }
          #expect(read == reference(digits), "byte \(byte) at \(place) of \(length)")
        }
      }
    }
    #expect(reference(key) != nil)
    let parsed = key.withUnsafeBytes { KeyStore.key(hexDigits: $0) }
    #expect(parsed?.withUnsafeBytes { Array($0) } == reference(key))
  }
}
