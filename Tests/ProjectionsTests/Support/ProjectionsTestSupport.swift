import Events
import Foundation
// Re-exported: every file of this target sees the shared test support.
@_exported import ReplayTestSupport
import Testing

@testable import Projections

/// The shared generator's former name here.
typealias TestRandom = SplitMix64

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
