import Events
import Projections

extension ReadModelExporter {
  /// The contacts as the array of `contacts-v3.json`, each object's keys in the source's order:
  /// `name`, `id`, `companyName`, `isFavorite`, `smallImageURL`, `largeImageURL`,
  /// `emailAddress`, `birthdate` (`YYYY-MM-DD`), `phone` {`work`, `home`, `mobile`}, `address`
  /// {`street`, `city`, `state`, `country`, `zipCode`}. A field the contact does not have is
  /// left out (`phone` and `address` too when they hold none); `isFavorite` is always there.
  ///
  /// Contacts come in the order they were first added to the log (for imported contacts, their
  /// source's order): contacts are never removed, so that order is stable.
  public static func json(_ list: ContactList) -> [UInt8] {
    var writer = JSONWriter(capacity: 512 * list.count + 16)
    writer.beginArray()
    for record in list.records {
      writer.beginObject()
      writer.key("name")
      writer.string(record.name)
      writer.key("id")
      writer.string(record.id.rawValue)
      optional(&writer, "companyName", record.companyName)
      writer.key("isFavorite")
      writer.bool(record.isFavorite)
      optional(&writer, "smallImageURL", record.smallImageURL)
      optional(&writer, "largeImageURL", record.largeImageURL)
      optional(&writer, "emailAddress", record.emailAddress)
      optional(&writer, "birthdate", record.birthdate?.description)
      let phone = record.phone
      if phone.work != nil || phone.home != nil || phone.mobile != nil {
        writer.key("phone")
        writer.beginObject()
        optional(&writer, "work", phone.work)
        optional(&writer, "home", phone.home)
        optional(&writer, "mobile", phone.mobile)
        writer.endObject()
      }
      let address = record.address
      let parts = [address.street, address.city, address.state, address.country, address.zipCode]
      if parts.contains(where: { $0 != nil }) {
        writer.key("address")
        writer.beginObject()
        optional(&writer, "street", address.street)
        optional(&writer, "city", address.city)
        optional(&writer, "state", address.state)
        optional(&writer, "country", address.country)
        optional(&writer, "zipCode", address.zipCode)
        writer.endObject()
      }
      writer.endObject()
    }
    writer.endArray()
    return PrettyJSON.format(writer.bytes)
  }

  /// Writes `"key": value` when there is a value.
  static func optional(_ writer: inout JSONWriter, _ key: StaticString, _ value: String?) {
    guard let value else { return }
    writer.key(key)
    writer.string(value)
  }
}
