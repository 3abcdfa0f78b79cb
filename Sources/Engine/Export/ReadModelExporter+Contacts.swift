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
      writer.field("name", record.name)
      writer.field("id", record.id.rawValue)
      writer.field("companyName", record.companyName)
      writer.field("isFavorite", record.isFavorite)
      writer.field("smallImageURL", record.smallImageURL)
      writer.field("largeImageURL", record.largeImageURL)
      writer.field("emailAddress", record.emailAddress)
      writer.field("birthdate", record.birthdate?.description)
      let phone = record.phone
      if phone.work != nil || phone.home != nil || phone.mobile != nil {
        writer.key("phone")
        writer.beginObject()
        writer.field("work", phone.work)
        writer.field("home", phone.home)
        writer.field("mobile", phone.mobile)
        writer.endObject()
      }
      let address = record.address
      let parts = [address.street, address.city, address.state, address.country, address.zipCode]
      if parts.contains(where: { $0 != nil }) {
        writer.key("address")
        writer.beginObject()
        writer.field("street", address.street)
        writer.field("city", address.city)
        writer.field("state", address.state)
        writer.field("country", address.country)
        writer.field("zipCode", address.zipCode)
        writer.endObject()
      }
      writer.endObject()
    }
    writer.endArray()
    return PrettyJSON.format(writer.bytes)
  }
}
