import Engine
import Events
import Postgres

/// `replay contacts favorite|unfavorite|erase <id>`.
enum ContactsCommand {
  static let command = Command(
    name: "contacts",
    abstract: "Favourite, unfavourite and erase contacts.",
    discussion: "Contacts come from 'replay import contacts'; these verbs change them.",
    subcommands: [
      verb("favorite", "Mark a contact as a favourite.") { .favoriteContact(id: $0) },
      verb("unfavorite", "Remove a contact from the favourites.") { .unfavoriteContact(id: $0) },
      erase,
    ])

  static let erase = Command(
    name: "erase", abstract: "Erase a contact's personal data for good.",
    discussion: """
      Appends ContactErased (who, when and why; no personal data), then destroys the key the \
      contact's personal fields are sealed under and removes the log's checkpoints. Every \
      read, at any point of the log, then shows the contact as '(erased)' with only its id, \
      company and favourite flag. The log's bytes do not change: 'replay verify --digest' \
      with a digest taken before still passes. Erasing twice appends nothing. An unknown \
      contact exits 65; a contact whose data the log holds in clear (schema 1) exits 65 too. \
      On a log kept in PostgreSQL (--log postgresql://...), the append, the key set to NULL \
      in message_store.replay_keys and the checkpoints deleted are one transaction, then \
      VACUUM FULL rewrites those two tables without the old row versions.
      """,
    arguments: [Argument(name: "id", help: "The contact's id, e.g. 13.")],
    options: CommonOptions.audit + CommonOptions.writing + [
      CommonOptions.json.withHelp("Print what was done as JSON.")
    ],
    run: { invocation in
      let id = try invocation.domainValue("id") { text throws(EventsError) in try ContactID(text)
      }
      let database = try invocation.openPostgresWriter()
      defer { database?.close() }
      let erasure: ContactErasure
      let keyStoreName: String
      // An erasure committed whose vacuum did not run: thrown once what was done is printed.
      var unfinished: UnfinishedErasure?
      do {
        if let database {
          keyStoreName = database.name + " (message_store.replay_keys)"
          do {
            erasure = try database.eraseContact(id, metadata: invocation.metadata)
          } catch let error as UnfinishedErasure {
            erasure = error.erasure
            unfinished = error
          }
        } else {
          let log = try invocation.openLogForWriting()
          erasure = try log.eraseContact(id, metadata: invocation.metadata)
          keyStoreName = KeyStore.path(forLog: log.path)
        }
      } catch let error as EventsError {
        throw invocation.inCommandLineWords(error)
      }
      if invocation[CommonOptions.json] {
        invocation.writeJSONObject { writer in
          writer.key("appended")
          if let event = erasure.event {
            writer.rawValue(event.logLine.dropLast())
          } else {
            writer.null()
          }
          writer.member("destroyedKeys", erasure.destroyedKeyCount)
          writer.member("removedCheckpoints", erasure.removedCheckpointCount)
          writer.key("checkpointsNotRemoved")
          writer.beginArray()
          for path in erasure.checkpointsNotRemoved { writer.string(path) }
          writer.endArray()
          writer.member("noChangeReason", erasure.noChangeReason)
        }
        if let unfinished { throw unfinished }
        return .success
      }
      if let event = erasure.event {
        invocation.terminal.write(
          "appended ContactErased to \(event.stream) (seq \(event.sequence), version \(event.version))\n"
        )
      } else if let reason = erasure.noChangeReason {
        invocation.terminal.write("nothing appended: \(reason)\n")
      }
      if erasure.destroyedKeyCount > 0 {
        invocation.terminal.write(
          "destroyed \(erasure.destroyedKeyCount) key\(erasure.destroyedKeyCount == 1 ? "" : "s") in \(keyStoreName); removed \(erasure.removedCheckpointCount) checkpoint\(erasure.removedCheckpointCount == 1 ? "" : "s")\n"
        )
      }
      if !erasure.checkpointsNotRemoved.isEmpty {
        invocation.terminal.write(
          "could not remove \(erasure.checkpointsNotRemoved.count) checkpoint file\(erasure.checkpointsNotRemoved.count == 1 ? "" : "s") (\(erasure.checkpointsNotRemoved.joined(separator: ", "))): each holds the contact sealed under its destroyed key and shows it as erased; remove them when the folder is writable\n"
        )
      }
      if let unfinished { throw unfinished }
      return .success
    })

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

extension UnfinishedErasure: CLIError {
  /// The status of what stopped the vacuum: 69 for a server gone, 75 for a lock timeout.
  var exitCode: ExitCode { cause.exitCode }

  var message: String {
    let reason =
      switch cause {
      case .connectionLost(let message), .statementTimeout(let message): message
      default: cause.description
      }
    return
      "the erasure of contact \(contact.rawValue) is committed (every read shows it as erased), "
      + "but VACUUM FULL \(table) did not run: \(reason); the old row versions that held the "
      + "key stay in the table's file until it does: run 'replay contacts erase "
      + "\(contact.rawValue)' again (it appends nothing and vacuums)"
  }
}
