import Engine
import Events

/// A generated contact, kept as a few numbers: its record is derived from them when needed
/// (`LogGenerator.record(of:)`).
struct GeneratedContact: Sendable {
  /// The id, `String(number)`, as in the real data.
  var number: Int
  var firstName: UInt8
  var lastName: UInt8
  var company: UInt8
  /// Each changes when the user changes that field, giving it a new derived value.
  var emailRevision: UInt16 = 0
  var workPhoneRevision: UInt16 = 0
  var mobilePhoneRevision: UInt16 = 0
  var addressRevision: UInt16 = 0
  var hasHomePhone = true
  var isFavorite: Bool
}

extension LogGenerator {
  /// `ContactAdded` with every field filled in; one in ten starts as a favourite.
  mutating func addContact() -> DomainEvent {
    let number = firstFreeNumber(from: nextContactNumber, kind: .contact) { String($0) }
    nextContactNumber = number + 1
    let contact = GeneratedContact(
      number: number, firstName: UInt8(random.below(GeneratorText.firstNames.count)),
      lastName: UInt8(random.below(GeneratorText.lastNames.count)),
      company: UInt8(random.below(GeneratorText.companies.count)), isFavorite: random.chance(0.1))
    contacts.append(contact)
    return .contact(.added(ContactAdded(record: Self.record(of: contact))))
  }

  /// `ContactFavorited` for a contact that is not a favourite, `ContactUnfavorited` for one
  /// that is.
  mutating func toggleFavorite() -> DomainEvent? {
    guard !contacts.isEmpty else { return nil }
    let index = random.below(contacts.count)
    contacts[index].isFavorite.toggle()
    let id = Self.contactID(contacts[index].number)
    return contacts[index].isFavorite
      ? .contact(.favorited(ContactFavorited(id: id)))
      : .contact(.unfavorited(ContactUnfavorited(id: id)))
  }

  /// `ContactUpdated` with exactly the fields that change: a new email address, phone number,
  /// address or company, a home phone added or dropped, or a new last name.
  mutating func updateContact() -> DomainEvent? {
    guard !contacts.isEmpty else { return nil }
    let index = random.below(contacts.count)
    let old = contacts[index]
    var new = old
    switch random.below(100) {
    case 0..<30: new.emailRevision &+= 1
    case 30..<55: new.mobilePhoneRevision &+= 1
    case 55..<65: new.workPhoneRevision &+= 1
    case 65..<82: new.addressRevision &+= 1
    case 82..<90:
      new.company = UInt8(
        random.other(than: Int(old.company), below: GeneratorText.companies.count))
    case 90..<96: new.hasHomePhone.toggle()
    default:
      new.lastName = UInt8(
        random.other(than: Int(old.lastName), below: GeneratorText.lastNames.count))
    }
    // The Decider's own diff, so the event is exactly what `updateContact` decides.
    guard
      let update = ContactUpdated.between(
        Self.record(of: old), Self.record(of: new), source: nil)
    else { return nil }
    contacts[index] = new
    return .contact(.updated(update))
  }

  static func contactID(_ number: Int) -> ContactID {
    valid(try? ContactID(String(number)), "contact id \(number)")
  }

  /// The contact's whole record, derived from its numbers.
  static func record(of contact: GeneratedContact) -> ContactRecord {
    let first = GeneratorText.firstNames[Int(contact.firstName)]
    let last = GeneratorText.lastNames[Int(contact.lastName)]
    let company = GeneratorText.companies[Int(contact.company)]
    let number = UInt64(contact.number)
    let slug = firstNameSlugs[Int(contact.firstName)] + "-" + lastNameSlugs[Int(contact.lastName)]
    let emailSuffix = contact.emailRevision == 0 ? "" : String(contact.emailRevision)
    let email =
      firstNameSlugs[Int(contact.firstName)] + "." + lastNameSlugs[Int(contact.lastName)]
      + emailSuffix + "@" + companyDomains[Int(contact.company)]
    let imageBase = "https://s3.amazonaws.com/technical-challenge/v3/images/\(slug)-\(number)"
    let birth = GeneratorRandom.hash(number, 7)
    let birthdate = try? CalendarDate(
      year: 1940 + Int(birth % 66), month: 1 + Int(birth / 66 % 12), day: 1 + Int(birth / 792 % 28))
    return ContactRecord(
      id: contactID(contact.number), name: first + " " + last, companyName: company,
      isFavorite: contact.isFavorite, smallImageURL: imageBase + "-small.jpg",
      largeImageURL: imageBase + "-large.jpg", emailAddress: email, birthdate: birthdate,
      phone: PhoneNumbers(
        work: phoneNumber(GeneratorRandom.hash(number, 1, UInt64(contact.workPhoneRevision))),
        home: contact.hasHomePhone ? phoneNumber(GeneratorRandom.hash(number, 2)) : nil,
        mobile: phoneNumber(GeneratorRandom.hash(number, 3, UInt64(contact.mobilePhoneRevision)))),
      address: address(GeneratorRandom.hash(number, 4, UInt64(contact.addressRevision))))
  }

  /// A US phone number such as `602-225-9543`.
  private static func phoneNumber(_ bits: UInt64) -> String {
    String(200 + bits % 800) + "-" + String(200 + bits / 800 % 800) + "-"
      + padded(Int(bits / 640_000 % 10_000), digits: 4)
  }

  /// A street address in one of `GeneratorText.cities`, with a zip code of its state.
  private static func address(_ bits: UInt64) -> PostalAddress {
    let city = GeneratorText.cities[Int(bits % UInt64(GeneratorText.cities.count))]
    let state = GeneratorText.states[city.state]
    let street = GeneratorText.streets[Int((bits >> 24) % UInt64(GeneratorText.streets.count))]
    let prefixes = state.zipPrefixes
    let prefix = prefixes.lowerBound + Int((bits >> 32) % UInt64(prefixes.count))
    return PostalAddress(
      street: String(1 + (bits >> 8) % 9899) + " " + street, city: city.name,
      state: state.abbreviation, country: "US",
      zipCode: padded(prefix * 100 + Int((bits >> 40) % 100), digits: 5))
  }

  /// Names as they appear in email addresses and image file names: lower case ASCII letters.
  private static let firstNameSlugs = GeneratorText.firstNames.map(slug)
  private static let lastNameSlugs = GeneratorText.lastNames.map(slug)
  private static let companyDomains = GeneratorText.companies.map { company in
    let name = slug(company)
    return (name.isEmpty ? "example" : name) + ".com"
  }

  private static func slug(_ text: String) -> String {
    let folded: [Character] = text.lowercased().unicodeScalars.compactMap { scalar in
      switch scalar {
      case "a"..."z", "0"..."9": Character(scalar)
      case "à", "á", "â", "ã", "ä", "å": "a"
      case "è", "é", "ê", "ë": "e"
      case "ì", "í", "î", "ï": "i"
      case "ò", "ó", "ô", "õ", "ö", "ø": "o"
      case "ù", "ú", "û", "ü": "u"
      case "ñ": "n"
      case "ç": "c"
      default: nil
      }
    }
    return String(folded)
  }
}
