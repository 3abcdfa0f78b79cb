import Events
import Foundation
import Testing

@testable import Projections

/// A seeded generator (SplitMix64), so random tests can be replayed from the printed seed.
struct TestRandom: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) {
    state = seed
  }

  /// The seed for a test run: `PROJECTIONS_TEST_SEED` from the environment, or `fallback`.
  static func seed(for test: String, fallback: UInt64) -> UInt64 {
    let seed =
      ProcessInfo.processInfo.environment["PROJECTIONS_TEST_SEED"].flatMap { UInt64($0) }
      ?? fallback
    print("\(test): seed \(seed) (set PROJECTIONS_TEST_SEED to replay another)")
    return seed
  }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
  }

  mutating func chance(_ probability: Double) -> Bool {
    Double.random(in: 0..<1, using: &self) < probability
  }

  mutating func pick<Element>(_ elements: [Element]) -> Element {
    elements[Int.random(in: 0..<elements.count, using: &self)]
  }
}

/// The context of the `sequence`th event of a test log (stream version 1, a fixed clock).
func context(_ sequence: Int64) -> EventContext {
  EventContext(
    sequence: sequence, streamVersion: 1,
    timestamp: Timestamp(millisecondsSince1970: 1_800_000_000_000 + sequence * 1000))
}

/// `events` folded into `Model` from its initial state, the nth event at `seq` n.
func fold<Model: ReadModel>(_: Model.Type, _ events: [DomainEvent]) -> Model {
  var model = Model()
  for (offset, event) in events.enumerated() {
    model.apply(event, at: context(Int64(offset + 1)))
  }
  return model
}

/// `events` folded into every model, the nth event at `seq` n.
func foldAll(_ events: [DomainEvent]) -> ReadModels {
  var models = ReadModels()
  for (offset, event) in events.enumerated() {
    models.apply(event, at: context(Int64(offset + 1)))
  }
  return models
}

/// Unwraps a value made by a throwing initializer from a literal known to be valid.
func valid<Value>(_ make: () throws -> Value) -> Value {
  do {
    return try make()
  } catch {
    preconditionFailure("invalid test literal: \(error)")
  }
}

func contactID(_ text: String) -> ContactID { valid { try ContactID(text) } }
func stateName(_ text: String) -> StateName { valid { try StateName(text) } }
func zipCode(_ text: String) -> ZipCode { valid { try ZipCode(text) } }
func observationID(_ text: String) -> ObservationID { valid { try ObservationID(text) } }
func animalID(_ text: String) -> AnimalID { valid { try AnimalID(text) } }
func locationID(_ text: String) -> LocationID { valid { try LocationID(text) } }
func coordinate(_ latitude: Double, _ longitude: Double) -> Coordinate {
  valid { try Coordinate(latitude: latitude, longitude: longitude) }
}
func timestamp(_ text: String) -> Timestamp {
  valid { () throws -> Timestamp in
    guard let value = Timestamp.parseISO8601(text) else { throw ProjectionsTestError(text) }
    return value
  }
}

struct ProjectionsTestError: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// Every byte prefix of `bytes` shorter than it (all of them for small buffers, an even spread
/// of 2,000 for large ones).
func truncations(of bytes: [UInt8]) -> [Int] {
  guard bytes.count > 2000 else { return Array(0..<bytes.count) }
  return (0..<2000).map { $0 * bytes.count / 2000 }
}
