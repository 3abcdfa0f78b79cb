import Engine
import Events
import Foundation
import Projections

/// `replay nearest <location>`: the nearest other locations.
enum NearestCommand {
  static let command = Command(
    name: "nearest",
    abstract: "List the locations nearest to one, by great-circle distance.",
    discussion: """
      Distances are Haversine distances in miles (Earth radius 3958.8 mi), shown to two \
      decimals, ascending; equal distances are ordered by id. Uses a k-d tree over unit vectors, \
      not a scan of every location.
      """,
    arguments: [Argument(name: "location", help: "A location's id, or its name.")],
    options: [
      CommonOptions.log,
      k,
    ] + ReadOptions.point + [CommonOptions.json],
    run: run)

  static let k = ValueOption(
    names: ["--k"], valueName: "n", help: "How many neighbours.", defaultValue: "3",
    expecting: "expected a whole number ≥ 1"
  ) { Int($0).flatMap { $0 >= 1 ? $0 : nil } }

  static func run(_ invocation: ParsedInvocation) throws -> ExitCode {
    let k = try invocation[NearestCommand.k] ?? 3
    let query = invocation.requiredValue("location")
    let result = try invocation.rebuild(models: [LocationList.name])
    let list = result.models.locations
    let location = try resolve(query, in: list)
    let neighbors = list.nearest(to: location.id, count: k) ?? []
    if invocation[CommonOptions.json] {
      invocation.writeJSONObject { writer in
        writer.member("seq", result.lastSequence)
        writer.key("location")
        writer.beginObject()
        writer.member("id", location.id.rawValue)
        writer.member("name", location.name)
        writer.endObject()
        writer.member("nearest", objects: neighbors) { writer, neighbor in
          writer.member("id", neighbor.id.rawValue)
          writer.member("name", neighbor.name)
          writer.key("distanceInMiles")
          writer.numberLiteral(neighbor.distanceText)
        }
      }
      return .success
    }
    var table = TextTable([
      .init(title: "#", alignment: .right), .init(title: "NAME"), .init(title: "ID"),
      .init(title: "MILES", alignment: .right),
    ])
    for (rank, neighbor) in neighbors.enumerated() {
      table.append([String(rank + 1), neighbor.name, neighbor.id.rawValue, neighbor.distanceText])
    }
    invocation.terminal.write(
      "nearest to \(location.name) (\(location.id.rawValue)) at seq \(result.lastSequence):\n"
        + table.render())
    return .success
  }

  /// The location with this id, else the only one with this name (case-insensitive).
  static func resolve(_ query: String, in list: LocationList) throws -> LocationRecord {
    if let id = try? LocationID(query), let location = list.location(id) { return location }
    let named = list.records.filter { $0.name.caseInsensitiveCompare(query) == .orderedSame }
    if named.count == 1 { return named[0] }
    if named.count > 1 {
      throw InputError.invalid(
        "\(named.count) locations are named '\(query)': \(named.map(\.id.rawValue).sorted().joined(separator: ", ")); give an id"
      )
    }
    throw InputError.invalid("no location has the id or name '\(query)'")
  }
}
