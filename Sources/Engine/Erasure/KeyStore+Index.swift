@_spi(Tables) import Events
import Foundation

extension KeyStore {
  /// A store as a replay reads it: every line checked (its shape and checksum, each key id
  /// once), but a key line's secret and contact read only when its key is asked for.
  ///
  /// ``KeyStore`` itself builds an entry, a contact `String` and two table entries for every
  /// line, about 3 000 instructions a key: 600 million for the 200 000 keys of a ten-million
  /// event log, before a replay from a checkpoint can open the few thousand it needs. The
  /// index keeps the file's bytes and one slot per key line (the key id and where its line
  /// is), and reads a line with the same two steps the store does
  /// (``KeyStore/quickKeyShape(_:)`` when indexing, ``KeyStore/quickEntry(_:_:)`` when asked);
  /// lines of any other shape (the header, tombstones, erasure marks, key lines written
  /// otherwise) are read whole, as the store reads them. What it answers is what the store
  /// would: ``lookup(_:)`` gives the same `Lookup` for every id, and a store the store refuses
  /// is refused here too (a line whose shape and checksum hold but whose secret does not read
  /// is reported when its key is asked for).
  struct Index: Sendable {
    /// The store's file.
    let path: String
    /// The file's bytes, as read.
    private let bytes: [UInt8]
    /// Open addressing by key id: where each key line of the common shape is.
    private let slots: [Slot]
    private let mask: Int
    /// Key lines of another shape, read whole.
    private let others: [KeyID: Entry]
    /// Tombstones: destroyed keys and their contacts.
    private let erased: [KeyID: String]

    struct Slot: Sendable {
      var id: UInt64 = 0
      var start = 0
      /// The line's length; 0 for an empty slot.
      var length = 0
    }

    /// Reads and checks the store beside the log at `logPath`; an absent store is empty.
    /// - Throws: `KeyStoreError` as ``KeyStore/init(logPath:)`` does.
    init(logPath: String) throws(KeyStoreError) {
      let path = KeyStore.path(forLog: logPath)
      let bytes = try KeyStore.contents(ofStoreAt: path) ?? []
      // A key line is at least 134 bytes: at most two thirds of the slots are ever used (half
      // of them took 6 MiB more for the 80 000 keys of a log of 4 M events).
      var capacity = 16
      while capacity < bytes.count / 134 * 3 / 2 { capacity *= 2 }
      let mask = capacity - 1
      var slots = HugePages.array(repeating: Slot(), count: capacity)
      var others: [KeyID: Entry] = [:]
      var otherStarts: [KeyID: Int] = [:]
      var erased: [KeyID: String] = [:]
      let end = try KeyStore.forEachLine(of: bytes, path: path) {
        (lineNumber, range, line) throws(KeyStoreError) in
        if lineNumber > 1, let shape = KeyStore.quickKeyShape(line) {
          let id = KeyID(rawValue: shape.id)
          guard others[id] == nil,
            Self.insert(
              Slot(id: shape.id, start: range.lowerBound, length: range.count), into: &slots,
              mask: mask)
          else {
            throw .corrupt(path: path, line: lineNumber, problem: "key \(id) appears twice")
          }
          return
        }
        switch try KeyStore.line(Array(line), number: lineNumber, path: path) {
        case .header, .write, .erasing:
          break
        case .erased(let id, let contact):
          erased[id] = contact
        case .key(let entry):
          guard Self.find(entry.id.rawValue, in: slots, mask: mask) == nil,
            others.updateValue(entry, forKey: entry.id) == nil
          else {
            throw .corrupt(path: path, line: lineNumber, problem: "key \(entry.id) appears twice")
          }
          otherStarts[entry.id] = range.lowerBound
        }
      }
      if end.torn {
        // The whole key lines of a torn write (read before its damage was found) are not the
        // store's, as in `KeyStore`: placed again without them.
        let placed = slots
        slots = HugePages.array(repeating: Slot(), count: capacity)
        for slot in placed where slot.length != 0 && slot.start < end.committed {
          _ = Self.insert(slot, into: &slots, mask: mask)
        }
        others = others.filter { (otherStarts[$0.key] ?? 0) < end.committed }
      }
      self.path = path
      self.bytes = bytes
      self.slots = slots
      self.mask = mask
      self.others = others
      self.erased = erased
    }

    /// The slot a key id starts probing at: ids are random, but a store is input, so they are
    /// mixed first.
    private static func home(_ id: UInt64, mask: Int) -> Int {
      Int(truncatingIfNeeded: (id &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
    }

    /// Puts `slot` in its place; `false` when its id is there already.
    private static func insert(_ slot: Slot, into slots: inout [Slot], mask: Int) -> Bool {
      var position = home(slot.id, mask: mask)
      while slots[position].length != 0 {
        if slots[position].id == slot.id { return false }
        position = (position + 1) & mask
      }
      slots[position] = slot
      return true
    }

    /// The position of the slot of `id`, if there is one.
    private static func find(_ id: UInt64, in slots: [Slot], mask: Int) -> Int? {
      var position = home(id, mask: mask)
      while slots[position].length != 0 {
        if slots[position].id == id { return position }
        position = (position + 1) & mask
      }
      return nil
    }

    /// What the store says of the key `id`, as ``KeyStore/lookup(_:)`` says it.
    /// - Throws: `KeyStoreError.corrupt` when the key's line has the shape of a key line and a
    ///   good checksum but its secret or contact does not read.
    func lookup(_ id: KeyID) throws(KeyStoreError) -> Lookup {
      if let position = Self.find(id.rawValue, in: slots, mask: mask) {
        let slot = slots[position]
        let range = slot.start..<slot.start + slot.length
        let entry = bytes.withUnsafeBytes { raw in
          let line = UnsafeRawBufferPointer(rebasing: raw[range])
          return KeyStore.quickKeyShape(line).flatMap { KeyStore.quickEntry(line, $0) }
        }
        if let entry { return .present(entry) }
        // Read whole, as the store reads a line the quick step declines, to say what is wrong.
        let number = 1 + bytes[..<slot.start].lazy.filter { $0 == 0x0A }.count
        if case .key(let entry) = try KeyStore.line(Array(bytes[range]), number: number, path: path)
        {
          return .present(entry)
        }
        return .missing
      }
      if let entry = others[id] { return .present(entry) }
      if let contact = erased[id] { return .erased(contact: contact) }
      return .missing
    }
  }
}
