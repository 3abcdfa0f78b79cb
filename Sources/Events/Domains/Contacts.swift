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

extension PhoneNumbers: PayloadComponent {
  static let layout: PayloadLayout = ["work": "a string", "home": "a string", "mobile": "a string"]

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var numbers = PhoneNumbers()
    try cursor.decodeObject(scope) { field, cursor throws(EventsError) in
      let value = try cursor.decodeOptionalString(field, scope).nilIfEmpty
      switch field {
      case 0: numbers.work = value
      case 1: numbers.home = value
      default: numbers.mobile = value
      }
    }
    self = numbers
  }

  func encode(to writer: inout JSONWriter) {
    writer.object(Self.layout) { members in
      members.add(work)
      members.add(home)
      members.add(mobile)
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

extension PostalAddress: PayloadComponent {
  static let layout: PayloadLayout = [
    "street": "a string", "city": "a string", "state": "a string", "country": "a string",
    "zipCode": "a string",
  ]

  init(decoding cursor: inout JSONCursor, scope: PayloadScope) throws(EventsError) {
    var address = PostalAddress()
    try cursor.decodeObject(scope) { field, cursor throws(EventsError) in
      let value = try cursor.decodeOptionalString(field, scope).nilIfEmpty
      switch field {
      case 0: address.street = value
      case 1: address.city = value
      case 2: address.state = value
      case 3: address.country = value
      default: address.zipCode = value
      }
    }
    self = address
  }

  func encode(to writer: inout JSONWriter) {
    writer.object(Self.layout) { members in
      members.add(street)
      members.add(city)
      members.add(state)
      members.add(country)
      members.add(zipCode)
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
  /// The plaintext form, what a value made in code encodes (`sealed == nil`).
  public static let schemaVersion = 1
  /// The form the log stores: the personal fields sealed (Contacts+Sealed.swift).
  public static let sealedSchemaVersion = 2
  public static var newestSchemaVersion: Int { sealedSchemaVersion }

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

  public var encodedSchemaVersion: Int {
    sealed == nil ? Self.schemaVersion : Self.sealedSchemaVersion
  }

  public var streamName: String { record.id.streamName }

  static let layout: PayloadLayout = [
    "id": ContactID.expectation,
    "name": ContactRecord.nameExpectation,
    "companyName": "a string",
    "isFavorite": "true or false",
    "smallImageURL": "a string",
    "largeImageURL": "a string",
    "emailAddress": "a string",
    "birthdate": CalendarDate.expectation,
    "phone": "an object {\"work\", \"home\", \"mobile\"}",
    "address": "an object {\"street\", \"city\", \"state\", \"country\", \"zipCode\"}",
    "source": "a string",
  ]

  public func encode(to writer: inout JSONWriter) {
    if let sealed { return encodeSealed(sealed, to: &writer) }
    writer.object(Self.layout) { members in
      members.add(record.id.rawValue)
      members.add(record.name)
      members.add(record.companyName)
      members.add(record.isFavorite)
      members.add(record.smallImageURL)
      members.add(record.largeImageURL)
      members.add(record.emailAddress)
      members.add(record.birthdate?.description)
      members.add(record.phone, omitted: record.phone.isEmpty)
      members.add(record.address, omitted: record.address.isEmpty)
      members.add(source)
    }
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    switch schemaVersion {
    case 1: self = try Self(version1: &cursor, strict: strict)
    case Self.sealedSchemaVersion: self = try Self(version2: &cursor, strict: strict)
    default: throw Self.unsupported(schemaVersion)
    }
  }

  private init(version1 cursor: inout JSONCursor, strict: Bool) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, layout: Self.layout, strict: strict)
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
    try cursor.decodeObject(scope) { field, cursor throws(EventsError) in
      switch field {
      case 0: id = try cursor.decodeText(ContactID.self, field, scope)
      case 1: name = try cursor.decodeTitle(field, scope)
      case 2: companyName = try cursor.decodeOptionalString(field, scope)
      case 3: isFavorite = try cursor.decodeBool(field, scope)
      case 4: smallImageURL = try cursor.decodeOptionalString(field, scope)
      case 5: largeImageURL = try cursor.decodeOptionalString(field, scope)
      case 6: emailAddress = try cursor.decodeOptionalString(field, scope)
      case 7: birthdate = try cursor.decodeOptionalDate(field, scope)
      case 8: phone = try cursor.decodeComponent(PhoneNumbers.self, field, scope)
      case 9: address = try cursor.decodeComponent(PostalAddress.self, field, scope)
      default: source = try cursor.decodeOptionalString(field, scope)
      }
    }
    record = ContactRecord(
      id: try scope.required(id, 0), name: try scope.required(name, 1),
      companyName: companyName, isFavorite: try scope.required(isFavorite, 3),
      smallImageURL: smallImageURL, largeImageURL: largeImageURL, emailAddress: emailAddress,
      birthdate: birthdate, phone: phone, address: address)
    self.source = source
  }
}

/// A contact became a favourite.
///
/// JSON: `{"id","source"?}`.
public struct ContactFavorited: EventPayload, Hashable {
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

  public var streamName: String { id.streamName }

  static let layout: PayloadLayout = ["id": ContactID.expectation, "source": "a string"]

  public func encode(to writer: inout JSONWriter) {
    writer.object(Self.layout) { members in
      members.add(id.rawValue)
      members.add(source)
    }
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    switch schemaVersion {
    case 1:
      (id, source) = try ContactID.decodeWithSource(&cursor, type: Self.self, strict: strict)
    default: throw Self.unsupported(schemaVersion)
    }
  }
}

/// A contact stopped being a favourite.
///
/// JSON: `{"id","source"?}`.
public struct ContactUnfavorited: EventPayload, Hashable {
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

  public var streamName: String { id.streamName }

  static let layout = ContactFavorited.layout

  public func encode(to writer: inout JSONWriter) {
    writer.object(Self.layout) { members in
      members.add(id.rawValue)
      members.add(source)
    }
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    switch schemaVersion {
    case 1:
      (id, source) = try ContactID.decodeWithSource(&cursor, type: Self.self, strict: strict)
    default: throw Self.unsupported(schemaVersion)
    }
  }
}

extension ContactID {
  /// Decodes `{"id","source"?}`, the shape of both favourite events.
  static func decodeWithSource(
    _ cursor: inout JSONCursor, type: any EventPayload.Type, strict: Bool
  ) throws(EventsError) -> (ContactID, String?) {
    let (id, source) = try decodeFavoritePayload(
      &cursor, type: type, strict: strict, readingSource: true)
    let text = cursor.makeString(id)
    return (ContactID(unchecked: text), source)
  }

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
    let scope = PayloadScope(type: type, layout: ContactFavorited.layout, strict: strict)
    var id: JSONStringSlice?
    var source: String?
    try cursor.decodeObject(scope) { field, cursor throws(EventsError) in
      switch field {
      case 0: id = try cursor.decodeIdentifier(field, scope)
      default:
        if readingSource {
          source = try cursor.decodeOptionalString(field, scope)
        } else {
          try cursor.skipString(field, scope)
        }
      }
    }
    return (try scope.required(id, 0), source)
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
  /// The plaintext form, what a value made in code encodes (`sealed == nil`).
  public static let schemaVersion = 1
  /// The form the log stores: the personal fields sealed (Contacts+Sealed.swift).
  public static let sealedSchemaVersion = 2
  public static var newestSchemaVersion: Int { sealedSchemaVersion }

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

  public var encodedSchemaVersion: Int {
    sealed == nil ? Self.schemaVersion : Self.sealedSchemaVersion
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

  static let layout: PayloadLayout = [
    "id": ContactID.expectation,
    "name": ContactRecord.nameExpectation,
    "companyName": "a string or null",
    "smallImageURL": "a string or null",
    "largeImageURL": "a string or null",
    "emailAddress": "a string or null",
    "birthdate": "\(CalendarDate.expectation) or null",
    "phone": "an object {\"work\", \"home\", \"mobile\"}",
    "address": "an object {\"street\", \"city\", \"state\", \"country\", \"zipCode\"}",
    "source": "a string",
  ]
  static let phoneLayout: PayloadLayout = [
    "work": "a string or null", "home": "a string or null", "mobile": "a string or null",
  ]
  static let addressLayout: PayloadLayout = [
    "street": "a string or null", "city": "a string or null", "state": "a string or null",
    "country": "a string or null", "zipCode": "a string or null",
  ]

  public func encode(to writer: inout JSONWriter) {
    if let sealed { return encodeSealed(sealed, to: &writer) }
    let text: (String, inout JSONWriter) -> Void = { value, writer in writer.string(value) }
    writer.object(Self.layout) { members in
      members.add(id.rawValue)
      members.add(name)
      members.add(companyName, text)
      members.add(smallImageURL, text)
      members.add(largeImageURL, text)
      members.add(emailAddress, text)
      members.add(birthdate) { value, writer in writer.string(value.description) }
      members.addObject(Self.phoneLayout, omitted: !changesPhone) { phone in
        phone.add(workPhone, text)
        phone.add(homePhone, text)
        phone.add(mobilePhone, text)
      }
      members.addObject(Self.addressLayout, omitted: !changesAddress) { address in
        address.add(street, text)
        address.add(city, text)
        address.add(state, text)
        address.add(country, text)
        address.add(zipCode, text)
      }
      members.add(source)
    }
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    switch schemaVersion {
    case 1: self = try Self(version1: &cursor, strict: strict)
    case Self.sealedSchemaVersion: self = try Self(version2: &cursor, strict: strict)
    default: throw Self.unsupported(schemaVersion)
    }
  }

  private init(version1 cursor: inout JSONCursor, strict: Bool) throws(EventsError) {
    let scope = PayloadScope(type: Self.self, layout: Self.layout, strict: strict)
    var id: ContactID?
    var update = ContactUpdated(id: ContactID(unchecked: ""))
    try cursor.decodeObject(scope) { field, cursor throws(EventsError) in
      switch field {
      case 0: id = try cursor.decodeText(ContactID.self, field, scope)
      case 1: update.name = try cursor.decodeTitle(field, scope)
      case 2: update.companyName = try cursor.decodeTextChange(field, scope)
      case 3: update.smallImageURL = try cursor.decodeTextChange(field, scope)
      case 4: update.largeImageURL = try cursor.decodeTextChange(field, scope)
      case 5: update.emailAddress = try cursor.decodeTextChange(field, scope)
      case 6:
        update.birthdate = try cursor.decodeOptionalDate(field, scope).map { .set($0) } ?? .cleared
      case 7:
        let phoneScope = scope.nested(Self.phoneLayout, in: field)
        try cursor.decodeObject(phoneScope) { field, cursor throws(EventsError) in
          let change = try cursor.decodeTextChange(field, phoneScope)
          switch field {
          case 0: update.workPhone = change
          case 1: update.homePhone = change
          default: update.mobilePhone = change
          }
        }
      case 8:
        let addressScope = scope.nested(Self.addressLayout, in: field)
        try cursor.decodeObject(addressScope) { field, cursor throws(EventsError) in
          let change = try cursor.decodeTextChange(field, addressScope)
          switch field {
          case 0: update.street = change
          case 1: update.city = change
          case 2: update.state = change
          case 3: update.country = change
          default: update.zipCode = change
          }
        }
      default: update.source = try cursor.decodeOptionalString(field, scope)
      }
    }
    update.id = try scope.required(id, 0)
    self = update
  }
}

/// A contact's personal data was erased: the key its personal fields were sealed under is
/// destroyed once this event is durable. Who, when and why are in the envelope's `meta`; the
/// payload holds no personal data.
///
/// JSON: `{"id"}`.
public struct ContactErased: EventPayload, Hashable {
  public static let eventType = "ContactErased"
  public static let schemaVersion = 1

  /// The contact's id.
  public var id: ContactID

  public init(id: ContactID) {
    self.id = id
  }

  public var streamName: String { id.streamName }

  static let layout: PayloadLayout = ["id": ContactID.expectation]

  public func encode(to writer: inout JSONWriter) {
    writer.object(Self.layout) { members in
      members.add(id.rawValue)
    }
  }

  public init(
    decoding cursor: inout JSONCursor, schemaVersion: Int, strict: Bool
  ) throws(EventsError) {
    id = try ContactID.decodeIDPayload(
      &cursor, type: Self.self, layout: Self.layout, schemaVersion: schemaVersion, strict: strict)
  }
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
  public var streamName: String {
    switch self {
    case .added(let event): event.streamName
    case .updated(let event): event.streamName
    case .favorited(let event): event.streamName
    case .unfavorited(let event): event.streamName
    case .erased(let event): event.streamName
    }
  }
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
