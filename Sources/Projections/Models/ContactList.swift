import Events

/// The contacts app's read model: every contact, shown in two sections, **Favorite Contacts**
/// then **Other Contacts**, each in alphabetical order.
///
/// Folds `ContactAdded` (sets the whole record; a second `ContactAdded` for the same id replaces
/// it), `ContactUpdated` (changes only the fields it carries: a `FieldChange.cleared` field
/// becomes absent), `ContactFavorited` and `ContactUnfavorited` (idempotent: favouriting a
/// favourite changes nothing) and `ContactErased` (only the id, the company and the favourite
/// flag stay; the name is `ContactRecord.erasedName`). Events for an id never added change
/// nothing.
///
/// **Views.** ``sections``: both sections, always in this order and always present (empty when
/// no contact belongs), each sorted by name ignoring case and diacritics (`Émile` sorts with
/// `emile`), equal names by id; see `NameOrdering`. A favourite's `displayName` is
/// `"⭐️ " + name` (U+2B50 U+FE0F, then a space). A missing image URL is shown as a named
/// placeholder image: `placeholder-small` for the list, `placeholder-large` for the detail.
/// The detail lists only the rows the contact has (see ``ContactDetailRow``).
///
/// **JSON** (`encode(to:options:)`; keys in this order, `company` omitted when absent):
/// ```
/// {"sections":[{"title":"Favorite Contacts","contacts":[
///   {"id":"4","name":"Harry Potter","displayName":"⭐️ Harry Potter","isFavorite":true,
///    "company":"...","smallImage":{"url":"https://..."},"largeImage":{"placeholder":"placeholder-large"},
///    "detail":[{"label":"Email","value":"Harry.Potter@gryffindor.edu"},...]}, ...]},
///  {"title":"Other Contacts","contacts":[...]}]}
/// ```
///
/// **Entries** (keyed by contact id), fields in this order, absent ones left out: `name`,
/// `isFavorite` (`true`/`false`), `companyName`, `smallImageURL`, `largeImageURL`,
/// `emailAddress`, `birthdate` (`YYYY-MM-DD`), `phone.work`, `phone.home`, `phone.mobile`,
/// `address.street`, `address.city`, `address.state`, `address.country`, `address.zipCode`.
///
/// **Checkpoint** (version 2): a varint count, then per contact its `id` string and a kind byte
/// (`StoredKind`): 0, the record in clear (a log written in clear, or an erased contact) as
/// version 1 had it: the `name` string, a `UInt16` of flags (bit 0 `isFavorite`; bits 1-13 say
/// which optional field follows, in the entries' order from `companyName`), then each present
/// optional field: strings, except the birthdate as `UInt16` year, `UInt8` month, `UInt8` day;
/// 1, sealed under a key derived from the contact's own (``CheckpointKeys``): flags, company,
/// key id, then the sealed record of that same layout; 2, withheld (a checkpoint holding one is
/// not used). docs/ERASURE.md, "Checkpoints: sealed per contact".
public struct ContactList: ReadModel {
  public static let name = "contacts"
  public static let checkpointVersion = 2

  /// The favourites' section title.
  public static let favoritesTitle = "Favorite Contacts"
  /// The other contacts' section title.
  public static let othersTitle = "Other Contacts"
  /// What a favourite's display name starts with: U+2B50 WHITE MEDIUM STAR, U+FE0F VARIATION
  /// SELECTOR-16 (emoji presentation), then a space.
  public static let favoriteMark = "\u{2B50}\u{FE0F} "
  /// The image the list shows for a contact without `smallImageURL`.
  public static let smallPlaceholder = "placeholder-small"
  /// The image the detail shows for a contact without `largeImageURL`.
  public static let largePlaceholder = "placeholder-large"

  /// The contacts, each with `isFavorite` false: the flag lives in `favoriteFlags`.
  private var table = EntityTable<ContactID, ContactRecord>()
  /// Each contact's `isFavorite`, by its position in `table` (contacts are never removed, so
  /// positions never move). Favourite toggles, the commonest contacts event, then touch a
  /// dense array of bytes that stays in cache, not a 250-byte record.
  private var favoriteFlags: [Bool] = []
  /// By position: the id of the key the contact's personal data was sealed under in the log
  /// (its latest sealed event's), 0 when it came from the log in clear or is erased. A
  /// checkpoint seals the contact's record under a key derived from it (see `write(to:)`).
  private var sealingKeys: [UInt64] = []

  public init() {}

  // MARK: Folding

  public mutating func apply(_ event: DomainEvent, at context: EventContext) {
    switch event {
    case .contact(.added(let added)):
      var record = added.record
      record.isFavorite = false
      let position = table.set(record.id, record)
      setFavorite(added.record.isFavorite, at: position)
      sealingKeys[position] = added.sealed?.keyID ?? 0
    case .contact(.updated(let update)):
      guard table.update(update.id, { update.apply(to: &$0) }) else { return }
      if let sealed = update.sealed, let position = table.position(of: update.id) {
        sealingKeys[position] = sealed.keyID
      }
    case .contact(.favorited(let favorited)):
      if let position = table.position(of: favorited.id) { favoriteFlags[position] = true }
    case .contact(.unfavorited(let unfavorited)):
      if let position = table.position(of: unfavorited.id) { favoriteFlags[position] = false }
    case .contact(.erased(let erased)):
      // Its sealed data no longer opens once the key is gone; this also covers a reader that
      // reads between the event and the key's destruction.
      table.update(erased.id) { $0 = $0.erased }
      if let position = table.position(of: erased.id) { sealingKeys[position] = 0 }
    default:
      return
    }
  }

  /// Folds a `ContactFavorited` (`isFavorite`) or `ContactUnfavorited` for the contact whose id
  /// is `contactID` (UTF-8): what `apply` does with that event, for replay's shortcut that
  /// neither makes the id's `String` nor the event.
  package mutating func setFavorite(_ isFavorite: Bool, contactID: UnsafeBufferPointer<UInt8>) {
    if let position = table.position(ofUTF8: contactID) { favoriteFlags[position] = isFavorite }
  }

  /// Folds one contacts event.
  public mutating func apply(_ event: ContactEvent) {
    apply(.contact(event), at: .unpositioned)
  }

  private mutating func setFavorite(_ isFavorite: Bool, at position: Int) {
    if position == favoriteFlags.count {
      favoriteFlags.append(isFavorite)
      sealingKeys.append(0)
    } else {
      favoriteFlags[position] = isFavorite
    }
  }

  // MARK: State

  public var count: Int { table.count }

  /// The contact with `id`, as the log has it.
  public func contact(_ id: ContactID) -> ContactRecord? {
    table.position(of: id).map(record)
  }

  /// The contact at `position` in `table`, with its `isFavorite`.
  private func record(at position: Int) -> ContactRecord {
    var record = table.value(at: position)
    record.isFavorite = favoriteFlags[position]
    return record
  }

  /// Every contact, in no particular order (use ``sections`` for the screen's order).
  public var records: [ContactRecord] { table.keys.indices.map(record) }

  public static func == (lhs: ContactList, rhs: ContactList) -> Bool {
    guard lhs.table == rhs.table else { return false }
    for (position, id) in lhs.table.keys.enumerated() {
      guard let other = rhs.table.position(of: id),
        lhs.favoriteFlags[position] == rhs.favoriteFlags[other]
      else { return false }
    }
    return true
  }

  // MARK: Views

  /// The list screen: favourites, then the others; each alphabetical.
  /// - Complexity: O(n log n); folds every name once.
  public var sections: [ContactSection] {
    sections(rowsPerSection: .max).map(\.section)
  }

  /// The two sections with at most `limit` rows each (the first in order), and how many
  /// contacts each holds in all: rows are built only for the contacts shown.
  public func sections(rowsPerSection limit: Int) -> [(section: ContactSection, count: Int)] {
    let records = self.records
    let order = NameOrdering.sortedPositions(names: records.map(\.name), ids: table.keys)
    var favorites = ContactSection(title: Self.favoritesTitle, contacts: [])
    var others = ContactSection(title: Self.othersTitle, contacts: [])
    var favoriteCount = 0
    var otherCount = 0
    for position in order {
      let record = records[position]
      if record.isFavorite {
        favoriteCount += 1
        if favorites.contacts.count < limit { favorites.contacts.append(ContactRow(record)) }
      } else {
        otherCount += 1
        if others.contacts.count < limit { others.contacts.append(ContactRow(record)) }
      }
    }
    return [(favorites, favoriteCount), (others, otherCount)]
  }

  /// The row (and detail) of contact `id`.
  public func row(for id: ContactID) -> ContactRow? {
    contact(id).map(ContactRow.init)
  }

  public func encode(to writer: inout JSONWriter, options: ViewOptions) {
    writer.beginObject()
    writer.member("sections", objects: sections) { writer, section in
      writer.field("title", section.title)
      writer.key("contacts")
      writer.beginArray()
      for row in section.contacts { row.encode(to: &writer) }
      writer.endArray()
    }
    writer.endObject()
  }

  // MARK: Entries

  public var entries: [EntityKey: ReadModelEntry] {
    table.entries { Self.entry(record(at: $0)) }
  }

  public func entry(forID id: String) -> ReadModelEntry? {
    guard let id = try? ContactID(id), let record = contact(id) else { return nil }
    return Self.entry(record)
  }

  private static func entry(_ record: ContactRecord) -> ReadModelEntry {
    var entry = ReadModelEntry()
    entry.append("name", record.name)
    entry.append("isFavorite", boolean: record.isFavorite)
    entry.append("companyName", record.companyName)
    entry.append("smallImageURL", record.smallImageURL)
    entry.append("largeImageURL", record.largeImageURL)
    entry.append("emailAddress", record.emailAddress)
    entry.append("birthdate", record.birthdate?.description)
    entry.append("phone.work", record.phone.work)
    entry.append("phone.home", record.phone.home)
    entry.append("phone.mobile", record.phone.mobile)
    entry.append("address.street", record.address.street)
    entry.append("address.city", record.address.city)
    entry.append("address.state", record.address.state)
    entry.append("address.country", record.address.country)
    entry.append("address.zipCode", record.address.zipCode)
    return entry
  }

  /// Checks the storage's invariants; for tests.
  func checkInvariants() {
    table.checkInvariants()
    precondition(favoriteFlags.count == table.count, "one favourite flag a contact")
    precondition(sealingKeys.count == table.count, "one sealing key a contact")
    precondition(!table.values.contains { $0.isFavorite }, "flags live in favoriteFlags")
  }

  // MARK: Checkpoint

  private static let flagBits = 14

  /// How a contact is kept in a checkpoint (version 2): the byte after its id.
  private enum StoredKind: UInt8 {
    /// The record as the log has it in clear (schema 1 logs), or erased: the version 1 layout.
    case clear = 0
    /// The personal data sealed under a key derived from the contact's key (``CheckpointKeys``):
    /// a byte of flags (bit 0 `isFavorite`, bit 1 a company follows), the company, the key id
    /// (`UInt64`), then the sealed record (a varint length, then nonce ‖ ciphertext ‖ tag)
    /// whose plaintext is the version 1 layout of the record after its id.
    case sealed = 1
    /// Data that came from sealed events but that no key could seal when written (flags and
    /// company as `sealed`, nothing else): a checkpoint holding one is not used.
    case withheld = 2
  }

  /// The associated data of a contact's sealed checkpoint record: a record moved to another
  /// contact does not open.
  private static func binding(_ id: ContactID) -> [UInt8] {
    Array("replay checkpoint contact ".utf8) + Array(id.rawValue.utf8)
  }

  /// Writes the contacts (checkpoint version 2). A contact whose data came from sealed events
  /// is written sealed under a key from `writer.keys` (``CheckpointKeys``), so destroying the
  /// contact's key erases this copy too; erased or destroyed, only its id, company and
  /// favourite flag are written.
  public func write(to writer: inout BinaryWriter) {
    writer.writeCount(table.count)
    for (position, id) in table.keys.enumerated() {
      writer.writeString(id.rawValue)
      let keyID = sealingKeys[position]
      guard keyID != 0, !writer.writesPersonalDataInClear else {
        writer.writeInteger(StoredKind.clear.rawValue)
        Self.writeRecord(table.value(at: position), favorite: favoriteFlags[position], to: &writer)
        continue
      }
      // A record loaded sealed and never read is copied as it is.
      if let (bytes, offset) = table.storedBytes(at: position), bytes[offset] == 1,
        let end = try? Self.endOfSealedRecord(in: bytes, at: offset)
      {
        writer.writeInteger(StoredKind.sealed.rawValue)
        var flags = bytes[offset + 1]
        flags = (flags & ~1) | (favoriteFlags[position] ? 1 : 0)
        writer.writeInteger(flags)
        writer.writeBytes(bytes[(offset + 2)..<end])
        continue
      }
      let record = table.value(at: position)
      let lookup = writer.keys?.checkpointKey(keyID, contact: id) ?? .unavailable
      switch lookup {
      case .erased:
        writer.writeInteger(StoredKind.clear.rawValue)
        Self.writeRecord(record.erased, favorite: favoriteFlags[position], to: &writer)
      case .unavailable:
        Self.writeWithheld(record, favorite: favoriteFlags[position], to: &writer)
      case .key(let key):
        var plaintext = BinaryWriter(capacity: 256)
        Self.writeRecord(record, favorite: false, to: &plaintext)
        let nonceBytes = Self.nonce(key: key, id: id, plaintext: plaintext.bytes)
        guard let nonce = try? ChaCha20Poly1305.Nonce(bytes: nonceBytes),
          let sealed = try? ChaCha20Poly1305.seal(
            plaintext.bytes, key: key, nonce: nonce, associatedData: Self.binding(id))
        else {
          Self.writeWithheld(record, favorite: favoriteFlags[position], to: &writer)
          continue
        }
        writer.writeInteger(StoredKind.sealed.rawValue)
        writer.writeInteger(
          UInt8(favoriteFlags[position] ? 1 : 0) | (record.companyName != nil ? 2 : 0))
        if let company = record.companyName { writer.writeString(company) }
        writer.writeInteger(keyID)
        writer.writeCount(nonceBytes.count + sealed.count)
        writer.writeBytes(nonceBytes)
        writer.writeBytes(sealed)
      }
    }
  }

  /// The nonce a contact's record is sealed with: the first 12 bytes of
  /// SHA-256("replay checkpoint nonce 1" ‖ 0x00 ‖ key ‖ id ‖ 0x00 ‖ plaintext). Derived, not drawn:
  /// two different records never share a nonce under one key (but with odds of 2^-96), the same
  /// record sealed again gives the same bytes (which shows no more than that it did not
  /// change), and the same state always gives the same checkpoint, in any build.
  private static func nonce(
    key: ChaCha20Poly1305.Key, id: ContactID, plaintext: [UInt8]
  ) -> [UInt8] {
    var hasher = SHA256()
    hasher.update(Array("replay checkpoint nonce 1".utf8) + [0])
    key.withUnsafeBytes { hasher.update($0) }
    hasher.update(Array(id.rawValue.utf8) + [0])
    hasher.update(plaintext)
    return Array(hasher.finalize().prefix(ChaCha20Poly1305.Nonce.byteCount))
  }

  private static func writeWithheld(
    _ record: ContactRecord, favorite: Bool, to writer: inout BinaryWriter
  ) {
    writer.writeInteger(StoredKind.withheld.rawValue)
    writer.writeInteger(UInt8(favorite ? 1 : 0) | (record.companyName != nil ? 2 : 0))
    if let company = record.companyName { writer.writeString(company) }
  }

  /// Where the sealed record stored at `offset` (at its kind byte) ends.
  private static func endOfSealedRecord(
    in bytes: [UInt8], at offset: Int
  ) throws(ProjectionsError) -> Int {
    var reader = BinaryReader(bytes, range: offset..<bytes.count)
    _ = try reader.readInteger(UInt8.self, "a contact's kind")
    let flags = try reader.readInteger(UInt8.self, "a contact's flags")
    if flags & 2 != 0 { _ = try reader.skipString("a contact's company") }
    _ = try reader.readInteger(UInt64.self, "a contact's key id")
    let count = try reader.readCount("a sealed contact's length", minimumSize: 1)
    _ = try reader.readBytes(count: count, "a sealed contact")
    return reader.offset
  }

  /// The version 1 layout of a record after its id: name, flags, the fields present.
  private static func writeRecord(
    _ record: ContactRecord, favorite: Bool, to writer: inout BinaryWriter
  ) {
    writer.writeString(record.name)
    var flags: UInt16 = favorite ? 1 : 0
    func flag(_ bit: UInt16, _ isPresent: Bool) {
      if isPresent { flags |= 1 << bit }
    }
    flag(1, record.companyName != nil)
    flag(2, record.smallImageURL != nil)
    flag(3, record.largeImageURL != nil)
    flag(4, record.emailAddress != nil)
    flag(5, record.phone.work != nil)
    flag(6, record.phone.home != nil)
    flag(7, record.phone.mobile != nil)
    flag(8, record.address.street != nil)
    flag(9, record.address.city != nil)
    flag(10, record.address.state != nil)
    flag(11, record.address.country != nil)
    flag(12, record.address.zipCode != nil)
    flag(13, record.birthdate != nil)
    writer.writeInteger(flags)
    func text(_ value: String?) {
      if let value { writer.writeString(value) }
    }
    text(record.companyName)
    text(record.smallImageURL)
    text(record.largeImageURL)
    text(record.emailAddress)
    text(record.phone.work)
    text(record.phone.home)
    text(record.phone.mobile)
    text(record.address.street)
    text(record.address.city)
    text(record.address.state)
    text(record.address.country)
    text(record.address.zipCode)
    if let birthdate = record.birthdate {
      writer.writeInteger(UInt16(birthdate.year))
      writer.writeInteger(UInt8(birthdate.month))
      writer.writeInteger(UInt8(birthdate.day))
    }
  }

  /// Loads the contacts with each record left in the checkpoint's bytes until it is used (see
  /// `EntityTable`): every byte is checked here, as a full decode would, but only the ids
  /// become `String`s. A sealed record's key is looked up here (an erased one loads as erased;
  /// one the store cannot give makes the checkpoint unusable) and its record opened when used.
  public init(from reader: inout BinaryReader) throws(ProjectionsError) {
    let count = try reader.readCount("the number of contacts", minimumSize: 4)
    table = EntityTable(minimumCapacity: count)
    favoriteFlags.reserveCapacity(count)
    sealingKeys.reserveCapacity(count)
    let keys = reader.keys
    // The checkpoint's bytes are shared, not copied: the models loaded from one checkpoint
    // keep that one buffer alive between them.
    table.beginStored(bytes: reader.bytes) { id, reader throws(ProjectionsError) in
      try Self.readStored(id: id, from: &reader, keys: keys)
    }
    // One value stands in for every stored record (it is never shown).
    var placeholder: ContactRecord?
    var skipped: ContactRecord? = nil
    for _ in 0..<count {
      let start = reader.offset
      let id = try reader.readIdentifier(ContactID.init, "a contact id")
      let recordStart = reader.offset
      let kindOffset = reader.offset
      let kindByte = try reader.readInteger(UInt8.self, "a contact's kind")
      guard let kind = StoredKind(rawValue: kindByte) else {
        throw reader.invalid(
          "contact '\(id)' kind", expected: "0 (clear), 1 (sealed) or 2 (withheld)",
          found: String(kindByte), at: kindOffset)
      }
      let isFavorite: Bool
      var keyID: UInt64 = 0
      var erasedRecord: ContactRecord?
      switch kind {
      case .clear:
        isFavorite = try Self.readRecord(id: id, from: &reader, into: &skipped)
      case .withheld:
        throw reader.invalid(
          "contact '\(id)'", expected: "its personal data, sealed",
          found: "it withheld (no key could seal it when the checkpoint was written)",
          at: kindOffset)
      case .sealed:
        let flagsOffset = reader.offset
        let flags = try reader.readInteger(UInt8.self, "a contact's flags")
        guard flags >> 2 == 0 else {
          throw reader.invalid(
            "contact '\(id)' flags", expected: "bits 0-1 only", found: String(flags),
            at: flagsOffset)
        }
        isFavorite = flags & 1 != 0
        let company = flags & 2 != 0 ? try reader.readString("a contact's company") : nil
        keyID = try reader.readInteger(UInt64.self, "a contact's key id")
        let sealedOffset = reader.offset
        let length = try reader.readCount("a sealed contact's length", minimumSize: 1)
        let minimum = ChaCha20Poly1305.Nonce.byteCount + ChaCha20Poly1305.tagByteCount
        guard length >= minimum else {
          throw reader.invalid(
            "contact '\(id)' sealed record", expected: "at least \(minimum) bytes",
            found: "\(length)", at: sealedOffset)
        }
        _ = try reader.readBytes(count: length, "a sealed contact")
        switch keys?.checkpointKeyState(keyID, contact: id) ?? .unavailable {
        case .available: break
        case .erased:
          erasedRecord = ContactRecord(id: id, name: ContactRecord.erasedName, companyName: company)
        case .unavailable:
          throw reader.invalid(
            "contact '\(id)' sealed record", expected: "a key to open it",
            found: "none for key \(String(keyID, radix: 16))",
            at: sealedOffset)
        }
      }
      if let erasedRecord {
        guard table.appendDecoded(id, erasedRecord) else {
          throw reader.repeated("a contact id", id, at: start)
        }
        keyID = 0
      } else {
        let stand = placeholder ?? ContactRecord(id: id, name: "")
        placeholder = stand
        guard table.appendStored(id, placeholder: stand, offset: recordStart) else {
          throw reader.repeated("a contact id", id, at: start)
        }
      }
      favoriteFlags.append(isFavorite)
      sealingKeys.append(keyID)
    }
  }

  /// Reads a stored contact after its id (at its kind byte): a clear record as it is, a
  /// sealed one opened with `keys`, or, its key destroyed since (or not opening), erased.
  private static func readStored(
    id: ContactID, from reader: inout BinaryReader, keys: (any CheckpointKeys)?
  ) throws(ProjectionsError) -> ContactRecord {
    let kind = try reader.readInteger(UInt8.self, "a contact's kind")
    var record: ContactRecord? = ContactRecord(id: id, name: "")
    guard kind == StoredKind.sealed.rawValue else {
      _ = try readRecord(id: id, from: &reader, into: &record)
      return record ?? ContactRecord(id: id, name: "")
    }
    let flags = try reader.readInteger(UInt8.self, "a contact's flags")
    let company = flags & 2 != 0 ? try reader.readString("a contact's company") : nil
    let erased = ContactRecord(id: id, name: ContactRecord.erasedName, companyName: company)
    let keyID = try reader.readInteger(UInt64.self, "a contact's key id")
    let length = try reader.readCount("a sealed contact's length", minimumSize: 1)
    let bytes = try reader.readBytes(count: length, "a sealed contact")
    guard case .key(let key) = keys?.checkpointKey(keyID, contact: id) ?? .unavailable,
      let nonce = try? ChaCha20Poly1305.Nonce(
        bytes: bytes.prefix(ChaCha20Poly1305.Nonce.byteCount)),
      let plaintext = try? ChaCha20Poly1305.open(
        bytes.dropFirst(ChaCha20Poly1305.Nonce.byteCount), key: key, nonce: nonce,
        associatedData: binding(id))
    else { return erased }
    var inner = BinaryReader(plaintext)
    _ = try readRecord(id: id, from: &inner, into: &record)
    return record ?? erased
  }

  /// Reads one contact after its id into `record` (`isFavorite` left false: the flag is
  /// returned); when `record` is `nil`, every field is checked and skipped without making a
  /// `String`. The load and the later read are this one function.
  /// - Returns: whether the contact is a favourite.
  private static func readRecord(
    id: ContactID, from reader: inout BinaryReader, into record: inout ContactRecord?
  ) throws(ProjectionsError) -> Bool {
    let building = record != nil
    /// A string, or (not building) its bytes checked and skipped, with `nil` in its place.
    func string(_ what: StaticString) throws(ProjectionsError) -> (text: String?, length: Int) {
      guard building else { return (nil, try reader.skipString(what)) }
      let text = try reader.readString(what)
      return (text, text.utf8.count)
    }
    func field(_ bit: Int) throws(ProjectionsError) -> String? {
      guard flags & (1 << UInt16(bit)) != 0 else { return nil }
      let start = reader.offset
      let (value, length) = try string("a contact field")
      guard length > 0 else {
        throw reader.invalid(
          "contact '\(id)' field", expected: "a non-empty string (absent fields are flagged)",
          found: "an empty string", at: start)
      }
      return value
    }
    let name = try string("a contact's name").text
    let flagsOffset = reader.offset
    let flags = try reader.readInteger(UInt16.self, "a contact's flags")
    guard flags >> Self.flagBits == 0 else {
      throw reader.invalid(
        "contact '\(id)' flags", expected: "bits 0-13 only",
        found: "0x" + String(flags, radix: 16), at: flagsOffset)
    }
    // Each field is read (and checked) whether or not there is a record to put it in.
    let company = try field(1)
    let smallImage = try field(2)
    let largeImage = try field(3)
    let email = try field(4)
    let workPhone = try field(5)
    let homePhone = try field(6)
    let mobilePhone = try field(7)
    let street = try field(8)
    let city = try field(9)
    let state = try field(10)
    let country = try field(11)
    let zipCode = try field(12)
    var birthdate: CalendarDate?
    if flags & (1 << 13) != 0 {
      let dateOffset = reader.offset
      let year = try reader.readInteger(UInt16.self, "a birthdate's year")
      let month = try reader.readInteger(UInt8.self, "a birthdate's month")
      let day = try reader.readInteger(UInt8.self, "a birthdate's day")
      do throws(EventsError) {
        birthdate = try CalendarDate(year: Int(year), month: Int(month), day: Int(day))
      } catch {
        throw reader.invalid(
          "contact '\(id)' birthdate", expected: "a valid date",
          found: "\(year)-\(month)-\(day)", at: dateOffset)
      }
    }
    if building {
      record = ContactRecord(
        id: id, name: name ?? "", companyName: company, isFavorite: false,
        smallImageURL: smallImage, largeImageURL: largeImage, emailAddress: email,
        birthdate: birthdate,
        phone: PhoneNumbers(work: workPhone, home: homePhone, mobile: mobilePhone),
        address: PostalAddress(
          street: street, city: city, state: state, country: country, zipCode: zipCode))
    }
    return flags & 1 != 0
  }
}

// MARK: - View types

/// A section of the contacts list.
public struct ContactSection: Sendable, Equatable {
  /// `Favorite Contacts` or `Other Contacts`.
  public var title: String
  /// The contacts, in display order.
  public var contacts: [ContactRow]
}

/// An image the app shows: a remote URL, or the named placeholder when the contact has none.
public enum ContactImage: Sendable, Equatable, Hashable {
  /// The contact's image at this URL.
  case url(String)
  /// The bundled placeholder image with this name.
  case placeholder(String)

  func encode(to writer: inout JSONWriter) {
    writer.beginObject()
    switch self {
    case .url(let url): writer.field("url", url)
    case .placeholder(let name): writer.field("placeholder", name)
    }
    writer.endObject()
  }
}

/// One row of a contact's detail screen.
///
/// Rows come in this order, each only when the contact has the field: `Company`, `Email`,
/// `Birthdate` (`YYYY-MM-DD`), `Work Phone`, `Home Phone`, `Mobile Phone`, `Address`. The
/// address is one row of up to three lines joined by `\n`: the street; the city, then `, `,
/// then the state and zip code separated by a space (`Phoenix, AZ 85034`, or whichever parts
/// exist); the country.
public struct ContactDetailRow: Sendable, Equatable, Hashable {
  /// `Company`, `Email`, `Birthdate`, `Work Phone`, `Home Phone`, `Mobile Phone` or `Address`.
  public var label: String
  /// The text shown.
  public var value: String
}

/// A contact as the list and detail screens show it.
public struct ContactRow: Sendable, Equatable {
  /// The contact's id.
  public var id: ContactID
  /// The name as the log has it.
  public var name: String
  /// The name the list shows: `"⭐️ " + name` for a favourite, `name` otherwise.
  public var displayName: String
  /// Whether the contact is a favourite (and in the first section).
  public var isFavorite: Bool
  /// The company, if the contact has one.
  public var company: String?
  /// The list's image.
  public var smallImage: ContactImage
  /// The detail's image.
  public var largeImage: ContactImage
  /// The detail rows the contact has.
  public var detail: [ContactDetailRow]

  /// The row of `record`.
  public init(_ record: ContactRecord) {
    id = record.id
    name = record.name
    displayName = record.isFavorite ? ContactList.favoriteMark + record.name : record.name
    isFavorite = record.isFavorite
    company = record.companyName
    smallImage = record.smallImageURL.map { .url($0) } ?? .placeholder(ContactList.smallPlaceholder)
    largeImage = record.largeImageURL.map { .url($0) } ?? .placeholder(ContactList.largePlaceholder)
    var detail: [ContactDetailRow] = []
    func add(_ label: String, _ value: String?) {
      if let value { detail.append(ContactDetailRow(label: label, value: value)) }
    }
    add("Company", record.companyName)
    add("Email", record.emailAddress)
    add("Birthdate", record.birthdate?.description)
    add("Work Phone", record.phone.work)
    add("Home Phone", record.phone.home)
    add("Mobile Phone", record.phone.mobile)
    let address = record.address
    let region = [address.state, address.zipCode].compactMap { $0 }.joined(separator: " ")
    let locality = [address.city, region.isEmpty ? nil : region].compactMap { $0 }
      .joined(separator: ", ")
    let lines = [address.street, locality.isEmpty ? nil : locality, address.country]
      .compactMap { $0 }
    add("Address", lines.isEmpty ? nil : lines.joined(separator: "\n"))
    self.detail = detail
  }

  func encode(to writer: inout JSONWriter) {
    writer.beginObject()
    writer.field("id", id.rawValue)
    writer.field("name", name)
    writer.field("displayName", displayName)
    writer.field("isFavorite", isFavorite)
    writer.field("company", company)
    writer.key("smallImage")
    smallImage.encode(to: &writer)
    writer.key("largeImage")
    largeImage.encode(to: &writer)
    writer.member("detail", objects: detail) { writer, row in
      writer.field("label", row.label)
      writer.field("value", row.value)
    }
    writer.endObject()
  }
}
