import Engine
import Events
import Foundation

/// `replay observations record|revise|remove`.
enum ObservationsCommand {
  static let timeZone = ReadOptions.timeZone.withHelp(
    "The time zone of a date written without one (an IANA name such as America/Chicago).",
    defaultValue: "UTC")
  static let classification = ValueOption(
    names: ["--classification"], valueName: "classification", help: "New classification.",
    choices: Classification.allCases.map(\.rawValue))
  static let title = TextOption(names: ["--title"], valueName: "title", help: "New title.")
  static let description = TextOption(
    names: ["--description"], valueName: "text", help: "New description.")
  static let date = TextOption(names: ["--date"], valueName: "date", help: "New date.")
  static let id = TextOption(
    names: ["--id"], valueName: "id", help: "The observation's id (12 hex digits).")

  static let command = Command(
    name: "observations",
    abstract: "Record, revise and remove field-survey observations.",
    discussion: """
      Dates are 'YYYY-MM-DD HH:MM' in --time-zone (UTC by default) or ISO 8601 with a zone \
      (2017-06-14T18:00:03Z). Classifications: \(Classification.allCases.map(\.rawValue).joined(separator: ", ")).
      """,
    subcommands: [
      DomainCommandRunner.verb(
        "record", abstract: "Record an observation.",
        discussion: """
          Without --id the observation's id is derived from its title and date, so recording \
          the same observation twice is refused rather than duplicated.
          """,
        options: [
          classification.withHelp("What was observed.", isRequired: true),
          title.withHelp("The title.", isRequired: true),
          description.withHelp("Where and how.", defaultValue: ""),
          date.withHelp("When it was seen.", isRequired: true),
          timeZone, id,
        ], decider: ObservationDecider.self
      ) { invocation in
        let record = ObservationRecord(
          classification: try classification(invocation) ?? .bird,
          title: invocation.requiredValue(title),
          description: invocation[description] ?? "",
          date: try date(invocation) ?? Timestamp(millisecondsSince1970: 0))
        let id =
          try invocation.optionalDomainValue(id) { text throws(EventsError) in
            try ObservationID(text)
          }
          ?? ObservationID.derived(from: "recorded\n\(record.title)\n\(record.date)")
        return .recordObservation(id: id, record)
      },
      DomainCommandRunner.verb(
        "revise", abstract: "Change some of an observation's fields.", arguments: [idArgument],
        options: [classification, title, description, date, timeZone],
        decider: ObservationDecider.self
      ) { invocation in
        .reviseObservation(
          id: try observationID(invocation), classification: try classification(invocation),
          title: invocation[title], description: invocation[description],
          date: try date(invocation))
      },
      DomainCommandRunner.verb(
        "remove", abstract: "Remove an observation.", arguments: [idArgument],
        decider: ObservationDecider.self
      ) { invocation in
        .removeObservation(id: try observationID(invocation))
      },
    ])

  static let idArgument = Argument(name: "id", help: "The observation's id (12 hex digits).")

  static func observationID(_ invocation: ParsedInvocation) throws -> ObservationID {
    try invocation.domainValue("id") { text throws(EventsError) in try ObservationID(text) }
  }

  static func classification(_ invocation: ParsedInvocation) throws -> Classification? {
    try invocation[classification].flatMap(Classification.init(rawValue:))
  }

  static func date(_ invocation: ParsedInvocation) throws -> Timestamp? {
    guard invocation[date] != nil else { return nil }
    let zoneName = invocation[timeZone] ?? "UTC"
    guard let zone = TimeZone(identifier: zoneName) else {
      throw UsageError(
        "The value '\(zoneName)' is invalid for '--time-zone <zone>': expected an IANA time zone such as UTC or America/Chicago"
      )
    }
    return try invocation.domainValue(date) { text throws(EventsError) in
      try ObservationDate.parse(text, timeZone: zone)
    }
  }
}
