import Events
import Projections

/// Every event of one entity's stream, in order, each with who made it, when, why, and what it
/// changed in the entity as its read model shows it.
///
/// Built by `LogReader.history(of:)`: the stream's events are folded, alone, into fresh read
/// models, and the model's entry for the entity (`ReadModel.entry(forID:)`) is compared before
/// and after each event, field by field.
package struct EntityHistory: Sendable, Equatable {
  /// The stream, its read model and the entity's id in it.
  public var stream: EntityStream
  /// The stream's events, oldest first.
  public var events: [Event]

  /// One event of the stream and its effect on the entity.
  public struct Event: Sendable, Equatable {
    /// The event's global position.
    public var sequence: Int64
    /// Its position in the stream.
    public var version: Int64
    /// When it was appended.
    public var timestamp: Timestamp
    /// Its type (`ContactFavorited`).
    public var type: String
    /// Who, why, and the ids that tie it to other events.
    public var metadata: EventMetadata
    /// The file or URL an importer read it from (the payload's `source`), or `nil` for an event
    /// a user made.
    public var source: String?
    /// The entity as its read model showed it before the event (`nil`: it did not exist).
    public var before: ReadModelEntry?
    /// The entity after the event (`nil`: it does not exist, e.g. it was removed).
    public var after: ReadModelEntry?

    /// An event with its envelope's fields and the entity's entry around it.
    public init(
      sequence: Int64, version: Int64, timestamp: Timestamp, type: String,
      metadata: EventMetadata, source: String?, before: ReadModelEntry?, after: ReadModelEntry?
    ) {
      self.sequence = sequence
      self.version = version
      self.timestamp = timestamp
      self.type = type
      self.metadata = metadata
      self.source = source
      self.before = before
      self.after = after
    }

    /// The fields that differ between `before` and `after` (all of them when the event created
    /// or removed the entity), in the order `EntryDiff.differences(from:to:)` gives.
    public var changes: [EntryDiff.FieldDifference] {
      EntryDiff.differences(from: before, to: after)
    }

    /// Whether the event brought the entity into being.
    public var isCreation: Bool { before == nil && after != nil }

    /// Whether the event removed the entity.
    public var isRemoval: Bool { before != nil && after == nil }
  }
}
