// The contacts vocabulary: contacts added, updated, favourited and unfavourited.
// Stream: `contact-<id>` (`contact-13`).
//
// Normalisation: every optional text field of a contact (`companyName`, the image URLs,
// `emailAddress`, each phone number, each address part) is `nil` when the source has it
// missing, `null` or empty (""); nothing else is trimmed or changed. `birthdate` is `nil` when
// missing, `null` or empty, and otherwise must be a valid `YYYY-MM-DD`.

/// A contact's id, a string in the source (`"13"`).
public struct ContactID: Hashable, Sendable, Comparable, CustomStringConvertible {
  /// The id as written.
  public let rawValue: String

  static let expectation = "a contact id of \(DomainText.identifierExpectation)"

  /// Validates `text` as a contact id.
  /// - Throws: `EventsError.invalidValue` when it is empty, longer than 200 bytes, holds a
  ///   control character or starts or ends with white space.
  public init(_ text: String) throws(EventsError) {
    if let problem = DomainText.identifierProblem(text) {
      throw EventsError.invalidValue(expected: Self.expectation, found: problem)
    }
    rawValue = text
  }

  /// The contact's stream, `contact-<id>`.
  public var streamName: String { EntityKind.contact.streamName(for: rawValue) }

  public var description: String { rawValue }
}

extension ContactID: PayloadIdentifier {}

/// A contact's phone numbers; each is `nil` when the source lacks it or has it empty.
///
/// JSON: `{"work"?,"home"?,"mobile"?}`.
public struct PhoneNumbers: Sendable, Equatable, Hashable {
  public var work: String?
  public var home: String?
  public var mobile: String?

  /// Creates the numbers; empty strings become `nil`.
  public init(work: String? = nil, home: String? = nil, mobile: String? = nil) {
    self.work = work.nilIfEmpty
    self.home = home.nilIfEmpty
    self.mobile = mobile.nilIfEmpty
  }

  /// Whether the contact has no number at all.
  public var isEmpty: Bool { work == nil && home == nil && mobile == nil }
}

extension PhoneNumbers: TextComponent {
  /// The object's keys, an update's changes to them too (`ContactUpdated.PhoneKey`).
  enum Key: String, TextKey {
    case work, home, mobile

    static let layout = PayloadLayout(Self.self)
  }

  static let absent = PhoneNumbers()

  subscript(key: Key) -> String? {
    get {
      switch key {
      case .work: work
      case .home: home
      case .mobile: mobile
      }
    }
    set {
      switch key {
      case .work: work = newValue
      case .home: home = newValue
      case .mobile: mobile = newValue
      }
    }
  }
}

/// A contact's postal address; each part is `nil` when the source lacks it or has it empty.
///
/// JSON: `{"street"?,"city"?,"state"?,"country"?,"zipCode"?}`. The zip code is kept as text:
/// addresses may be outside the US.
public struct PostalAddress: Sendable, Equatable, Hashable {
  public var street: String?
  public var city: String?
  public var state: String?
  public var country: String?
  public var zipCode: String?

  /// Creates the address; empty strings become `nil`.
  public init(
    street: String? = nil, city: String? = nil, state: String? = nil, country: String? = nil,
    zipCode: String? = nil
  ) {
    self.street = street.nilIfEmpty
    self.city = city.nilIfEmpty
    self.state = state.nilIfEmpty
    self.country = country.nilIfEmpty
    self.zipCode = zipCode.nilIfEmpty
  }

  /// Whether no part is set.
  public var isEmpty: Bool {
    street == nil && city == nil && state == nil && country == nil && zipCode == nil
  }
}

extension PostalAddress: TextComponent {
  /// The object's keys, an update's changes to them too (`ContactUpdated.AddressKey`).
  enum Key: String, TextKey {
    case street, city, state, country, zipCode

    static let layout = PayloadLayout(Self.self)
  }

  static let absent = PostalAddress()

  subscript(key: Key) -> String? {
    get {
      switch key {
      case .street: street
      case .city: city
      case .state: state
      case .country: country
      case .zipCode: zipCode
      }
    }
    set {
      switch key {
      case .street: street = newValue
      case .city: city = newValue
      case .state: state = newValue
      case .country: country = newValue
      case .zipCode: zipCode = newValue
      }
    }
  }
}

/// A contact as the source holds it (`contacts-v3.json`), normalised (see the file's notes).
public struct ContactRecord: Sendable, Equatable, Hashable {
  /// `id`.
  public var id: ContactID
  /// `name`; never empty or blank.
  public var name: String
  /// `companyName`: `nil` when the source has it missing, `null` or `""`.
  public var companyName: String?
  /// `isFavorite`.
  public var isFavorite: Bool
  /// `smallImageURL`; `nil` when missing or empty (the app shows a placeholder).
  public var smallImageURL: String?
  /// `largeImageURL`; `nil` when missing or empty.
  public var largeImageURL: String?
  /// `emailAddress`; `nil` when missing or empty.
  public var emailAddress: String?
  /// `birthdate`; `nil` when missing or empty.
  public var birthdate: CalendarDate?
  /// `phone`: `work`, `home`, `mobile`.
  public var phone: PhoneNumbers
  /// `address`: `street`, `city`, `state`, `country`, `zipCode`.
  public var address: PostalAddress

  /// Creates a record; empty strings in optional fields become `nil`.
  public init(
    id: ContactID, name: String, companyName: String? = nil, isFavorite: Bool = false,
    smallImageURL: String? = nil, largeImageURL: String? = nil, emailAddress: String? = nil,
    birthdate: CalendarDate? = nil, phone: PhoneNumbers = PhoneNumbers(),
    address: PostalAddress = PostalAddress()
  ) {
    self.id = id
    self.name = name
    self.companyName = companyName.nilIfEmpty
    self.isFavorite = isFavorite
    self.smallImageURL = smallImageURL.nilIfEmpty
    self.largeImageURL = largeImageURL.nilIfEmpty
    self.emailAddress = emailAddress.nilIfEmpty
    self.birthdate = birthdate
    self.phone = phone
    self.address = address
  }

  static let nameExpectation = "a name that is not empty or only white space"
  static let phoneExpectation = "an object {\"work\", \"home\", \"mobile\"}"
  static let addressExpectation =
    "an object {\"street\", \"city\", \"state\", \"country\", \"zipCode\"}"
}

// MARK: - Events

/// A contact was added (by a user, or imported when `source` is set).
///
/// JSON: `{"id","name","companyName"?,"isFavorite","smallImageURL"?,"largeImageURL"?,
/// "emailAddress"?,"birthdate"?,"phone"?:{"work"?,"home"?,"mobile"?},
/// "address"?:{"street"?,"city"?,"state"?,"country"?,"zipCode"?},"source"?}`; absent fields
/// (and an empty `phone` or `address`) are omitted.
public struct ContactAdded: EventPayload, Hashable {
  public static let eventType = "ContactAdded"
  /// The plaintext form, what a value made in code encodes (`sealed == nil`); the log stores
  /// the sealed form, `sealedSchemaVersion` (Contacts+Sealed.swift).
  public static let schemaVersion = 1

  /// The contact. For a payload read at schema 2 and not opened (or whose key was destroyed),
  /// only the clear fields: the name is `ContactRecord.erasedName`.
  public var record: ContactRecord
  /// The file name or URL it was imported from; `nil` when a user added it.
  public var source: String?
  /// The personal data as the log holds it, sealed; `nil` for a schema 1 payload.
  public var sealed: SealedPersonalData?

  public init(record: ContactRecord, source: String? = nil) {
    self.record = record
    self.source = source
  }

  public var streamName: String { record.id.streamName }

  /// The keys of the plaintext form (schema 1).
  enum Key: String, PayloadKey {
    case id, name, companyName, isFavorite, smallImageURL, largeImageURL, emailAddress, birthdate
    case phone, address, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: ContactID.expectation
      case .name: ContactRecord.nameExpectation
      case .isFavorite: "true or false"
      case .birthdate: CalendarDate.expectation
      case .phone: ContactRecord.phoneExpectation
      case .address: ContactRecord.addressExpectation
      case .companyName, .smallImageURL, .largeImageURL, .emailAddress, .source: "a string"
      }
    }
  }

  func encodeClear(to writer: inout JSONWriter) {
    writer.object(Key.self) { key, members in
      switch key {
      case .id: members.add(record.id.rawValue)
      case .name: members.add(record.name)
      case .companyName: members.add(record.companyName)
      case .isFavorite: members.add(record.isFavorite)
      case .smallImageURL: members.add(record.smallImageURL)
      case .largeImageURL: members.add(record.largeImageURL)
      case .emailAddress: members.add(record.emailAddress)
      case .birthdate: members.add(record.birthdate?.description)
      case .phone: members.add(record.phone, omitted: record.phone.isEmpty)
      case .address: members.add(record.address, omitted: record.address.isEmpty)
      case .source: members.add(source)
      }
    }
  }

  init(version1 cursor: inout JSONCursor, strict: Bool) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, keys: Key.self, strict: strict)
    var id: ContactID?
    var name: String?
    var companyName: String?
    var isFavorite: Bool?
    var smallImageURL: String?
    var largeImageURL: String?
    var emailAddress: String?
    var birthdate: CalendarDate?
    var phone = PhoneNumbers()
    var address = PostalAddress()
    var source: String?
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(ContactID.self, field, scope)
      case .name: name = try cursor.decodeTitle(field, scope)
      case .companyName: companyName = try cursor.decodeOptionalString(field, scope)
      case .isFavorite: isFavorite = try cursor.decodeBool(field, scope)
      case .smallImageURL: smallImageURL = try cursor.decodeOptionalString(field, scope)
      case .largeImageURL: largeImageURL = try cursor.decodeOptionalString(field, scope)
      case .emailAddress: emailAddress = try cursor.decodeOptionalString(field, scope)
      case .birthdate: birthdate = try cursor.decodeOptionalDate(field, scope)
      case .phone: phone = try cursor.decodeComponent(PhoneNumbers.self, field, scope)
      case .address: address = try cursor.decodeComponent(PostalAddress.self, field, scope)
      case .source: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    record = ContactRecord(
      id: try scope.required(id, Key.id), name: try scope.required(name, Key.name),
      companyName: companyName, isFavorite: try scope.required(isFavorite, Key.isFavorite),
      smallImageURL: smallImageURL, largeImageURL: largeImageURL, emailAddress: emailAddress,
      birthdate: birthdate, phone: phone, address: address)
    self.source = source
  }
}

/// A contact became a favourite.
///
/// JSON: `{"id","source"?}`.
public struct ContactFavorited: FavoriteTogglePayload, Hashable {
  public static let eventType = "ContactFavorited"
  public static let schemaVersion = 1

  /// The contact's id.
  public var id: ContactID
  /// The file name or URL whose new version marked it a favourite; `nil` for a user's action.
  public var source: String?

  public init(id: ContactID, source: String? = nil) {
    self.id = id
    self.source = source
  }

  /// The payload's keys (an unfavourite's too).
  enum Key: String, PayloadKey {
    case id, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: ContactID.expectation
      case .source: "a string"
      }
    }
  }
}

/// A contact stopped being a favourite.
///
/// JSON: `{"id","source"?}`.
public struct ContactUnfavorited: FavoriteTogglePayload, Hashable {
  public static let eventType = "ContactUnfavorited"
  public static let schemaVersion = 1

  /// The contact's id.
  public var id: ContactID
  /// The file name or URL whose new version unmarked it; `nil` for a user's action.
  public var source: String?

  public init(id: ContactID, source: String? = nil) {
    self.id = id
    self.source = source
  }

  /// The same keys as a favourite's.
  typealias Key = ContactFavorited.Key
}

/// The payload of both favourite events, `{"id","source"?}`, at schema 1: its codec is written
/// once here.
protocol FavoriteTogglePayload: EventPayload {
  /// The contact's id.
  var id: ContactID { get }
  /// The file name or URL whose new version brought the change; `nil` for a user's action.
  var source: String? { get }
  /// The toggle of contact `id`.
  init(id: ContactID, source: String?)
}

extension FavoriteTogglePayload {
  public var streamName: String { id.streamName }

  public func encode(to writer: inout JSONWriter) {
    writer.object(ContactFavorited.Key.self) { key, members in
      switch key {
      case .id: members.add(id.rawValue)
      case .source: members.add(source)
      }
    }
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    guard schemaVersion == Self.schemaVersion else { throw Self.unsupported(schemaVersion) }
    let (id, source) = try ContactID.decodeFavoritePayload(
      &cursor, type: Self.self, strict: strict, readingSource: true)
    self.init(id: ContactID(unchecked: cursor.makeString(id)), source: source)
  }
}

extension ContactID {
  /// The one decoder of both favourite events' payload, `{"id","source"?}`: where the id lies
  /// (checked as `ContactID.init(_:)` checks it) and, when `readingSource`, the source (else
  /// skipped). Replay's `EventVocabulary.favoriteToggle` uses the id's bytes as they are.
  static func decodeFavoritePayload(
    _ cursor: inout JSONCursor, type: any EventPayload.Type, strict: Bool, readingSource: Bool
  ) throws(EventsError) -> (id: JSONStringSlice, source: String?) {
    // Quick step: the writer's `{"id":"<plain id>"}`, read without setting up the general
    // reader (over half of a typical log is this payload). Anything else is read by the
    // general reader below from the payload's start.
    var quick = cursor
    if quick.consume("{\"id\":"), let id = quick.plainStringSlice(), quick.isPlainIdentifier(id),
      quick.consume("}")
    {
      cursor = quick
      return (id, nil)
    }
    let scope = PayloadScope(type: type, keys: ContactFavorited.Key.self, strict: strict)
    var id: JSONStringSlice?
    var source: String?
    try cursor.decodeObject(scope) {
      (key: ContactFavorited.Key, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeIdentifier(field, scope)
      case .source:
        if readingSource {
          source = try cursor.decodeOptionalString(field, scope)
        } else {
          try cursor.skipString(field, scope)
        }
      }
    }
    return (try scope.required(id, ContactFavorited.Key.id), source)
  }
}

/// Some of a contact's fields changed; only the changed ones are present. `isFavorite` changes
/// through `ContactFavorited` / `ContactUnfavorited`, never here.
///
/// Each field is `nil` when unchanged; optional fields change with `FieldChange` (`.set` a value
/// or `.cleared`). JSON: `{"id","name"?,"companyName"?,"smallImageURL"?,"largeImageURL"?,
/// "emailAddress"?,"birthdate"?,"phone"?:{"work"?,"home"?,"mobile"?},
/// "address"?:{"street"?,"city"?,"state"?,"country"?,"zipCode"?},"source"?}`, where an omitted
/// key is unchanged and `null` (or `""`) means cleared.
public struct ContactUpdated: EventPayload, Hashable {
  public static let eventType = "ContactUpdated"
  /// The plaintext form, what a value made in code encodes (`sealed == nil`); the log stores
  /// the sealed form, `sealedSchemaVersion` (Contacts+Sealed.swift).
  public static let schemaVersion = 1

  /// The contact's id.
  public var id: ContactID
  /// The new name.
  public var name: String?
  public var companyName: FieldChange<String>?
  public var smallImageURL: FieldChange<String>?
  public var largeImageURL: FieldChange<String>?
  public var emailAddress: FieldChange<String>?
  public var birthdate: FieldChange<CalendarDate>?
  public var workPhone: FieldChange<String>?
  public var homePhone: FieldChange<String>?
  public var mobilePhone: FieldChange<String>?
  public var street: FieldChange<String>?
  public var city: FieldChange<String>?
  public var state: FieldChange<String>?
  public var country: FieldChange<String>?
  public var zipCode: FieldChange<String>?
  /// The file name or URL whose new version brought the change; `nil` for a user's update.
  public var source: String?
  /// The personal data as the log holds it, sealed; `nil` for a schema 1 payload. Read at
  /// schema 2 and not opened (or with its key destroyed), only `companyName` is set.
  public var sealed: SealedPersonalData?

  /// An update of contact `id` that changes nothing yet; set the fields that change.
  public init(id: ContactID, source: String? = nil) {
    self.id = id
    self.source = source
  }

  /// The update that turns `old` into `new`, `isFavorite` aside, or `nil` when nothing but
  /// `isFavorite` differs.
  public static func between(
    _ old: ContactRecord, _ new: ContactRecord, source: String?
  ) -> ContactUpdated? {
    var update = ContactUpdated(id: new.id, source: source)
    update.name = old.name == new.name ? nil : new.name
    update.companyName = .between(old.companyName, new.companyName)
    update.smallImageURL = .between(old.smallImageURL, new.smallImageURL)
    update.largeImageURL = .between(old.largeImageURL, new.largeImageURL)
    update.emailAddress = .between(old.emailAddress, new.emailAddress)
    update.birthdate = .between(old.birthdate, new.birthdate)
    update.workPhone = .between(old.phone.work, new.phone.work)
    update.homePhone = .between(old.phone.home, new.phone.home)
    update.mobilePhone = .between(old.phone.mobile, new.phone.mobile)
    update.street = .between(old.address.street, new.address.street)
    update.city = .between(old.address.city, new.address.city)
    update.state = .between(old.address.state, new.address.state)
    update.country = .between(old.address.country, new.address.country)
    update.zipCode = .between(old.address.zipCode, new.address.zipCode)
    return update.changesNothing ? nil : update
  }

  /// Whether no field changes.
  public var changesNothing: Bool {
    name == nil && companyName == nil && smallImageURL == nil && largeImageURL == nil
      && emailAddress == nil && birthdate == nil && !changesPhone && !changesAddress
  }

  var changesPhone: Bool { workPhone != nil || homePhone != nil || mobilePhone != nil }

  var changesAddress: Bool {
    street != nil || city != nil || state != nil || country != nil || zipCode != nil
  }

  /// `record` with this update's changes applied.
  public func applied(to record: ContactRecord) -> ContactRecord {
    var result = record
    apply(to: &result)
    return result
  }

  /// Applies this update's changes to `record` in place.
  public func apply(to record: inout ContactRecord) {
    // A switch, not `FieldChange.newValue`: generic members are not specialized for callers in
    // other modules, and read models call this once per update they fold.
    func assign<Value>(_ change: FieldChange<Value>?, _ field: inout Value?) {
      switch change {
      case .none: return
      case .set(let value): field = value
      case .cleared: field = nil
      }
    }
    if let name { record.name = name }
    assign(companyName, &record.companyName)
    assign(smallImageURL, &record.smallImageURL)
    assign(largeImageURL, &record.largeImageURL)
    assign(emailAddress, &record.emailAddress)
    assign(birthdate, &record.birthdate)
    assign(workPhone, &record.phone.work)
    assign(homePhone, &record.phone.home)
    assign(mobilePhone, &record.phone.mobile)
    assign(street, &record.address.street)
    assign(city, &record.address.city)
    assign(state, &record.address.state)
    assign(country, &record.address.country)
    assign(zipCode, &record.address.zipCode)
  }

  public var streamName: String { id.streamName }

  /// The keys of the plaintext form (schema 1).
  enum Key: String, PayloadKey {
    case id, name, companyName, smallImageURL, largeImageURL, emailAddress, birthdate, phone
    case address, source

    static let layout = PayloadLayout(Self.self)

    var expected: String {
      switch self {
      case .id: ContactID.expectation
      case .name: ContactRecord.nameExpectation
      case .birthdate: "\(CalendarDate.expectation) or null"
      case .phone: ContactRecord.phoneExpectation
      case .address: ContactRecord.addressExpectation
      case .companyName, .smallImageURL, .largeImageURL, .emailAddress: "a string or null"
      case .source: "a string"
      }
    }
  }

  /// The keys of `phone`: a contact's, each a change.
  typealias PhoneKey = PhoneNumbers.Key
  /// The keys of `address`: a contact's, each a change.
  typealias AddressKey = PostalAddress.Key
  /// The layouts of `phone` and `address`, whose changes may also be `null` (clearing).
  static let phoneChangeLayout = PayloadLayout(PhoneKey.self) { _ in "a string or null" }
  static let addressChangeLayout = PayloadLayout(AddressKey.self) { _ in "a string or null" }

  func encodeClear(to writer: inout JSONWriter) {
    let text: (String, inout JSONWriter) -> Void = { value, writer in writer.string(value) }
    writer.object(Key.self) { key, members in
      switch key {
      case .id: members.add(id.rawValue)
      case .name: members.add(name)
      case .companyName: members.add(companyName, text)
      case .smallImageURL: members.add(smallImageURL, text)
      case .largeImageURL: members.add(largeImageURL, text)
      case .emailAddress: members.add(emailAddress, text)
      case .birthdate: members.add(birthdate) { value, writer in writer.string(value.description) }
      case .phone:
        members.addObject(PhoneKey.self, omitted: !changesPhone) { key, phone in
          switch key {
          case .work: phone.add(workPhone, text)
          case .home: phone.add(homePhone, text)
          case .mobile: phone.add(mobilePhone, text)
          }
        }
      case .address:
        members.addObject(AddressKey.self, omitted: !changesAddress) { key, address in
          switch key {
          case .street: address.add(street, text)
          case .city: address.add(city, text)
          case .state: address.add(state, text)
          case .country: address.add(country, text)
          case .zipCode: address.add(zipCode, text)
          }
        }
      case .source: members.add(source)
      }
    }
  }

  init(version1 cursor: inout JSONCursor, strict: Bool) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, keys: Key.self, strict: strict)
    var id: ContactID?
    var update = ContactUpdated(id: ContactID(unchecked: ""))
    try cursor.decodeObject(scope) { (key: Key, field, cursor) throws(EventsError) in
      switch key {
      case .id: id = try cursor.decodeText(ContactID.self, field, scope)
      case .name: update.name = try cursor.decodeTitle(field, scope)
      case .companyName: update.companyName = try cursor.decodeTextChange(field, scope)
      case .smallImageURL: update.smallImageURL = try cursor.decodeTextChange(field, scope)
      case .largeImageURL: update.largeImageURL = try cursor.decodeTextChange(field, scope)
      case .emailAddress: update.emailAddress = try cursor.decodeTextChange(field, scope)
      case .birthdate:
        update.birthdate = try cursor.decodeOptionalDate(field, scope).map { .set($0) } ?? .cleared
      case .phone:
        let phoneScope = scope.nested(Self.phoneChangeLayout, in: field)
        try cursor.decodeObject(phoneScope) { (key: PhoneKey, field, cursor) throws(EventsError) in
          let change = try cursor.decodeTextChange(field, phoneScope)
          switch key {
          case .work: update.workPhone = change
          case .home: update.homePhone = change
          case .mobile: update.mobilePhone = change
          }
        }
      case .address:
        let addressScope = scope.nested(Self.addressChangeLayout, in: field)
        try cursor.decodeObject(addressScope) {
          (key: AddressKey, field, cursor) throws(EventsError) in
          let change = try cursor.decodeTextChange(field, addressScope)
          switch key {
          case .street: update.street = change
          case .city: update.city = change
          case .state: update.state = change
          case .country: update.country = change
          case .zipCode: update.zipCode = change
          }
        }
      case .source: update.source = try cursor.decodeOptionalString(field, scope)
      }
    }
    update.id = try scope.required(id, Key.id)
    self = update
  }
}

/// A contact's personal data was erased: the key its personal fields were sealed under is
/// destroyed once this event is durable. Who, when and why are in the envelope's `meta`; the
/// payload holds no personal data.
///
/// JSON: `{"id"}`.
public struct ContactErased: IDPayload, Hashable {
  public static let eventType = "ContactErased"
  public static let schemaVersion = 1

  /// The contact's id.
  public var id: ContactID

  public init(id: ContactID) {
    self.id = id
  }

  public var streamName: String { id.streamName }

  static let layout = ContactID.idPayloadLayout()
}

extension ContactID {
  /// An id whose text the caller has checked (a placeholder, or text that passed
  /// `DomainText.identifierProblem`'s checks).
  init(unchecked text: String) {
    rawValue = text
  }
}

/// The contacts domain's events.
public enum ContactEvent: Sendable, Equatable, Hashable {
  indirect case added(ContactAdded)
  indirect case updated(ContactUpdated)
  case favorited(ContactFavorited)
  case unfavorited(ContactUnfavorited)
  case erased(ContactErased)

  /// The stream the event belongs to.
  public var streamName: String { DomainEvent.contact(self).streamName }
}

extension JSONCursor {
  /// Reads an optional text field: `null` or `""` clear it, any other string sets it.
  mutating func decodeTextChange(
    _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> FieldChange<String> {
    guard let text = try decodeOptionalString(field, scope), !text.isEmpty else { return .cleared }
    return .set(text)
  }

  /// Reads an optional birthdate: `null` or `""` are `nil`, other strings must be `YYYY-MM-DD`.
  mutating func decodeOptionalDate(
    _ field: Int, _ scope: PayloadScope
  ) throws(EventsError) -> CalendarDate? {
    guard let text = try decodeOptionalString(field, scope), !text.isEmpty else { return nil }
    do throws(EventsError) {
      return try CalendarDate(text)
    } catch {
      throw scope.rethrowing(error, field: field)
    }
  }
}

extension String? {
  /// `nil` when `nil` or empty.
  var nilIfEmpty: String? {
    guard let self, !self.isEmpty else { return nil }
    return self
  }
}
