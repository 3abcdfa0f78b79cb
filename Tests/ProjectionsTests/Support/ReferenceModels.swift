import Events

@testable import Projections

/// The simplest folds that could work, for oracle tests: plain dictionaries, arrays and linear
/// scans, written from the models' documented rules, not from their code.
struct ReferenceModels {
  var contacts: [ContactID: ContactRecord] = [:]
  var states: [StateName: [ZipCode]] = [:]
  var observations: [ObservationID: ObservationRecord] = [:]
  var animals: [AnimalID: (animal: Animal, place: Int64)] = [:]
  var locations: [LocationID: LocationRecord] = [:]

  mutating func apply(_ event: DomainEvent, sequence: Int64) {
    switch event {
    case .contact(.added(let added)): contacts[added.record.id] = added.record
    case .contact(.updated(let update)):
      if let record = contacts[update.id] { contacts[update.id] = update.applied(to: record) }
    case .contact(.favorited(let favorited)): contacts[favorited.id]?.isFavorite = true
    case .contact(.unfavorited(let unfavorited)): contacts[unfavorited.id]?.isFavorite = false
    case .contact(.erased(let erased)):
      contacts[erased.id] = contacts[erased.id]?.erased
    case .state(.stateAdded(let added)):
      if states[added.state] == nil { states[added.state] = [] }
    case .state(.zipCodeAdded(let added)):
      var zipCodes = states[added.state] ?? []
      if !zipCodes.contains(added.zipCode) { zipCodes.append(added.zipCode) }
      states[added.state] = zipCodes
    case .state(.zipCodeModified(let modified)):
      guard var zipCodes = states[modified.state],
        let index = zipCodes.firstIndex(of: modified.from)
      else { return }
      if zipCodes.contains(modified.to) {
        if modified.from != modified.to { zipCodes.remove(at: index) }
      } else {
        zipCodes[index] = modified.to
      }
      states[modified.state] = zipCodes
    case .state(.zipCodeRemoved(let removed)):
      states[removed.state]?.removeAll { $0 == removed.zipCode }
    case .observation(.recorded(let recorded)): observations[recorded.id] = recorded.record
    case .observation(.revised(let revision)):
      if let record = observations[revision.id] {
        observations[revision.id] = revision.applied(to: record)
      }
    case .observation(.removed(let removed)): observations[removed.id] = nil
    case .zoo(.imported(let imported)):
      let record = imported.record
      let picture = record.pictures.first { !$0.url.isEmpty }.map { AnimalPicture.remote($0.url) }
      let animal = Animal(
        id: record.id, name: record.nameChinese, englishName: record.nameEnglish,
        location: record.location, description: "", picture: picture ?? .none)
      animals[record.id] = (animal, animals[record.id]?.place ?? sequence)
    case .zoo(.inserted(let inserted)):
      let path = inserted.picturePath ?? ""
      let animal = Animal(
        id: inserted.id, name: inserted.name, englishName: "", location: "",
        description: inserted.description, picture: path.isEmpty ? .none : .local(path))
      animals[inserted.id] = (animal, sequence)
    case .zoo(.removed(let removed)): animals[removed.id] = nil
    case .location(.added(let added)): locations[added.record.id] = added.record
    case .location(.renamed(let renamed)): locations[renamed.id]?.name = renamed.name
    case .location(.moved(let moved)): locations[moved.id]?.coordinate = moved.coordinate
    case .location(.removed(let removed)): locations[removed.id] = nil
    }
  }

  /// The catalogue order: inserted newest first, then imported in order of first import.
  var catalogue: [Animal] {
    let inserted = animals.values.filter { $0.animal.isInserted }.sorted { $0.place > $1.place }
    let imported = animals.values.filter { !$0.animal.isInserted }.sorted { $0.place < $1.place }
    return (inserted + imported).map(\.animal)
  }

  /// Every difference between `models` and this reference, as text (empty when they agree).
  func differences(from models: ReadModels) -> [String] {
    var differences: [String] = []
    func check(_ isEqual: Bool, _ what: @autoclosure () -> String) {
      if !isEqual { differences.append(what()) }
    }
    check(models.contacts.count == contacts.count, "contact count")
    for (id, record) in contacts {
      check(models.contacts.contact(id) == record, "contact \(id)")
    }
    check(models.zipCodes.count == states.count, "state count")
    for (state, zipCodes) in states {
      check(models.zipCodes.zipCodes(in: state) == zipCodes, "zip codes of \(state)")
    }
    check(models.observations.count == observations.count, "observation count")
    for (id, record) in observations {
      check(models.observations.observation(id) == record, "observation \(id)")
    }
    check(models.animals.animals == catalogue, "catalogue")
    check(models.locations.count == locations.count, "location count")
    for (id, record) in locations {
      check(models.locations.location(id) == record, "location \(id)")
    }
    return differences
  }
}
