import Engine
import Events

/// A generated observation, kept as indexes into the word lists.
struct GeneratedObservation: Sendable {
  var id: ObservationID
  /// An index into `Classification.allCases`.
  var classification: Int
  /// An index into the classification's species.
  var species: Int
  /// An index into `GeneratorText.observationNotes`.
  var note: Int
  /// When it was seen, in minutes from 2015-01-01T00:00Z.
  var minute: Int
}

extension LogGenerator {
  /// Observations are dated within nine years from 2015-01-01T00:00Z.
  private static let firstObservationInstant: Int64 = 1_420_070_400_000
  private static let observationMinutes = 9 * 365 * 24 * 60

  /// `ObservationRecorded` of any of the seven classifications.
  mutating func recordObservation() -> DomainEvent {
    var id: ObservationID
    repeat {
      id = ObservationID.derived(from: "generate/\(seed)/observation/\(nextObservationNumber)")
      nextObservationNumber += 1
    } while observationIDs.contains(id.rawValue) || isStreamTaken(id.streamName)
    observationIDs.insert(id.rawValue)
    let classification = random.below(Classification.allCases.count)
    let observation = GeneratedObservation(
      id: id, classification: classification,
      species: random.below(Self.species(classification).count),
      note: random.below(GeneratorText.observationNotes.count),
      minute: random.below(Self.observationMinutes))
    liveObservations.insert(observations.count)
    observations.append(observation)
    return .observation(
      .recorded(ObservationRecorded(id: id, record: Self.record(of: observation))))
  }

  /// `ObservationRevised` of a live observation with exactly the fields that change: its notes,
  /// its species, its date, or its classification (and so its species).
  mutating func reviseObservation() -> DomainEvent? {
    guard let index = liveObservations.randomMember(using: &random) else { return nil }
    let old = observations[index]
    var new = old
    switch random.below(100) {
    case 0..<45:
      new.note = random.other(than: old.note, below: GeneratorText.observationNotes.count)
    case 45..<65:
      new.species = random.other(
        than: old.species, below: Self.species(old.classification).count)
    case 65..<85:
      new.minute = random.other(than: old.minute, below: Self.observationMinutes)
    default:
      new.classification = random.other(
        than: old.classification, below: Classification.allCases.count)
      new.species = random.below(Self.species(new.classification).count)
    }
    // The Decider's own diff, so the event is exactly what `reviseObservation` decides.
    guard
      let revision = ObservationRevised.between(
        Self.record(of: old), Self.record(of: new), id: old.id, source: nil)
    else { return nil }
    observations[index] = new
    return .observation(.revised(revision))
  }

  /// `ObservationRemoved` of a live observation.
  mutating func removeObservation() -> DomainEvent? {
    guard let index = liveObservations.randomMember(using: &random) else { return nil }
    liveObservations.remove(index)
    return .observation(.removed(ObservationRemoved(id: observations[index].id)))
  }

  private static func species(_ classification: Int) -> [String] {
    GeneratorText.species[Classification.allCases[classification]] ?? ["Unidentified"]
  }

  private static func record(of observation: GeneratedObservation) -> ObservationRecord {
    ObservationRecord(
      classification: Classification.allCases[observation.classification],
      title: species(observation.classification)[observation.species],
      description: GeneratorText.observationNotes[observation.note],
      date: Timestamp(
        millisecondsSince1970: firstObservationInstant + Int64(observation.minute) * 60_000))
  }
}
