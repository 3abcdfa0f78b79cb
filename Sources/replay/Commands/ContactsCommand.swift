import Engine
import Events

/// `replay contacts favorite|unfavorite <id>`.
enum ContactsCommand {
  static let command = Command(
    name: "contacts",
    abstract: "Favourite and unfavourite contacts.",
    discussion: "Contacts come from 'replay import contacts'; these verbs change them.",
    subcommands: [
      verb("favorite", "Mark a contact as a favourite.") { .favoriteContact(id: $0) },
      verb("unfavorite", "Remove a contact from the favourites.") { .unfavoriteContact(id: $0) },
    ])

  static func verb(
    _ name: String, _ abstract: String,
    _ make: @escaping @Sendable (ContactID) -> ContactCommand
  ) -> Command {
    Command(
      name: name, abstract: abstract,
      discussion: "Doing it to a contact that already is (or is not) a favourite appends nothing.",
      arguments: [Argument(name: "id", help: "The contact's id, e.g. 13.")],
      options: DomainCommandRunner.options,
      run: { invocation in
        let id = try invocation.domainValue("id") { text throws(EventsError) in try ContactID(text)
        }
        return try DomainCommandRunner.run(make(id), with: ContactDecider.self, invocation)
      })
  }
}
