import Events

/// One short line saying what an event does, for `replay import --dry-run`:
/// `'Miss Piggy'`, `phone.work, emailAddress`, `→ 'Alpha Base'`, `+ 90003`.
package enum EventSummary {
  /// What `event` records, in a few words.
  public static func describe(_ event: DomainEvent) -> String {
    switch event {
    case .observation(.recorded(let recorded)):
      let record = recorded.record
      return "\(record.classification.rawValue) \(quoted(record.title)) at \(record.date)"
    case .observation(.revised(let revised)):
      var changes: [String] = []
      if let classification = revised.classification {
        changes.append("classification → \(classification.rawValue)")
      }
      if let title = revised.title { changes.append("title → \(quoted(title))") }
      if let description = revised.description {
        changes.append("description → \(quoted(description))")
      }
      if let date = revised.date { changes.append("date → \(date)") }
      return changes.joined(separator: ", ")
    case .observation(.removed):
      return "removed"
    case .state(.stateAdded(let added)):
      return quoted(added.state.rawValue)
    case .state(.zipCodeAdded(let added)):
      return "+ \(added.zipCode)"
    case .state(.zipCodeModified(let modified)):
      return "\(modified.from) → \(modified.to)"
    case .state(.zipCodeRemoved(let removed)):
      return "- \(removed.zipCode)"
    case .zoo(.imported(let imported)):
      let record = imported.record
      let names = [record.nameChinese, record.nameEnglish].filter { !$0.isEmpty }
      return names.isEmpty ? "_id \(record.sourceID)" : names.joined(separator: " / ")
    case .zoo(.inserted(let inserted)):
      return quoted(inserted.name)
    case .zoo(.removed):
      return "removed"
    case .location(.added(let added)):
      return "\(quoted(added.record.name)) at \(added.record.coordinate)"
    case .location(.renamed(let renamed)):
      return "→ \(quoted(renamed.name))"
    case .location(.moved(let moved)):
      return "→ \(moved.coordinate)"
    case .location(.removed):
      return "removed"
    case .contact(.added(let added)):
      return quoted(added.record.name) + (added.record.isFavorite ? " (favorite)" : "")
    case .contact(.updated(let updated)):
      return changedFields(updated).joined(separator: ", ")
    case .contact(.favorited):
      return "favorite"
    case .contact(.unfavorited):
      return "not a favorite"
    case .contact(.erased):
      return "erased"
    }
  }

  /// The fields a contact update changes, as the source spells them, with their new values:
  /// `phone.work → '808-555-0100'`, `companyName cleared`.
  static func changedFields(_ update: ContactUpdated) -> [String] {
    func change(_ field: String, _ value: FieldChange<String>?) -> String? {
      switch value {
      case nil: nil
      case .set(let text)?: "\(field) → \(quoted(text))"
      case .cleared?: "\(field) cleared"
      }
    }
    let birthdate = update.birthdate.map { change -> FieldChange<String> in
      switch change {
      case .set(let date): .set(date.description)
      case .cleared: .cleared
      }
    }
    return [
      update.name.map { "name → \(quoted($0))" },
      change("companyName", update.companyName), change("smallImageURL", update.smallImageURL),
      change("largeImageURL", update.largeImageURL), change("emailAddress", update.emailAddress),
      change("birthdate", birthdate), change("phone.work", update.workPhone),
      change("phone.home", update.homePhone), change("phone.mobile", update.mobilePhone),
      change("address.street", update.street), change("address.city", update.city),
      change("address.state", update.state), change("address.country", update.country),
      change("address.zipCode", update.zipCode),
    ].compactMap { $0 }
  }

  /// `'text'`, cut at 40 characters, line breaks shown as `\n`.
  static func quoted(_ text: String) -> String {
    RecordLabel.quoted("", text).map { String($0.dropFirst()) } ?? "''"
  }
}
