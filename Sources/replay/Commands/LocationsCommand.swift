import Engine
import Events

/// `replay locations add|rename|move|remove`.
enum LocationsCommand {
  static let command = Command(
    name: "locations",
    abstract: "Add, rename, move and remove locations.",
    discussion: "Latitude is in [-90, 90] and longitude in [-180, 180], in degrees.",
    subcommands: [
      DomainCommandRunner.verb(
        "add", abstract: "Add a location.",
        discussion: """
          Without --id the location gets an id derived from its name and coordinate, so adding \
          the same place twice is refused rather than duplicated.
          """,
        options: [
          name, DomainCommandRunner.latitude.withHelp("Latitude.", isRequired: true),
          DomainCommandRunner.longitude.withHelp("Longitude.", isRequired: true), id,
        ], decider: LocationDecider.self
      ) { invocation in
        let coordinate = try invocation.coordinate()
        let name = invocation.requiredValue(LocationsCommand.name)
        let id =
          try invocation.optionalDomainValue(LocationsCommand.id) { text throws(EventsError) in
            try LocationID(text)
          }
          ?? derivedID(name: name, coordinate: coordinate)
        return .addLocation(LocationRecord(id: id, name: name, coordinate: coordinate))
      },
      DomainCommandRunner.verb(
        "rename", abstract: "Give a location a new name.",
        arguments: [idArgument, Argument(name: "name", help: "The new name.")],
        decider: LocationDecider.self
      ) { invocation in
        .renameLocation(id: try locationID(invocation), name: invocation.requiredValue("name"))
      },
      DomainCommandRunner.verb(
        "move", abstract: "Move a location.", arguments: [idArgument],
        options: [DomainCommandRunner.latitude, DomainCommandRunner.longitude],
        decider: LocationDecider.self
      ) { invocation in
        .moveLocation(id: try locationID(invocation), to: try invocation.coordinate())
      },
      DomainCommandRunner.verb(
        "remove", abstract: "Remove a location.", arguments: [idArgument],
        decider: LocationDecider.self
      ) { invocation in
        .removeLocation(id: try locationID(invocation))
      },
    ])

  static let name = TextOption(
    names: ["--name"], valueName: "name", help: "The location's name.", isRequired: true)
  static let id = TextOption(names: ["--id"], valueName: "id", help: "The location's id.")

  static let idArgument = Argument(name: "id", help: "The location's id (its GeoJSON feature id).")

  static func locationID(_ invocation: ParsedInvocation) throws -> LocationID {
    try invocation.domainValue("id") { text throws(EventsError) in try LocationID(text) }
  }

  /// A UUID-shaped id derived from the name and coordinate.
  static func derivedID(name: String, coordinate: Coordinate) throws -> LocationID {
    let id = EventID.derived(
      fromName: "location/\(name)/\(coordinate.latitude)/\(coordinate.longitude)")
    do throws(EventsError) {
      return try LocationID(id.description)
    } catch {
      throw UsageError("cannot derive an id: \(error.description)")
    }
  }
}
