import Events

/// A stream's name as a dictionary key, compared as bytes (see `UTF8Key`).
public typealias StreamName = UTF8Key

extension EventLog {
  /// Streams' histories by name, names compared as bytes (see `StreamName`): what
  /// `events(inStreams:)` answers.
  public struct StreamHistories: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    private var histories: [StreamName: StreamHistory]

    public init() {
      histories = [:]
    }

    public init(dictionaryLiteral elements: (String, StreamHistory)...) {
      histories = [:]
      for (stream, history) in elements { histories[StreamName(stream)] = history }
    }

    /// The history of `stream` (its name compared as bytes), or `nil` when it was not asked
    /// for or, from `LogReader`, has no events.
    public subscript(stream: String) -> StreamHistory? {
      get { histories[StreamName(stream)] }
      set { histories[StreamName(stream)] = newValue }
    }

    /// How many streams there are.
    public var count: Int { histories.count }

    /// Whether there are none.
    public var isEmpty: Bool { histories.isEmpty }

    /// The streams' names, in no particular order.
    public var streams: [String] { histories.keys.map(\.rawValue) }

    public func makeIterator() -> some IteratorProtocol<(stream: String, history: StreamHistory)> {
      histories.lazy.map { (stream: $0.key.rawValue, history: $0.value) }.makeIterator()
    }

    /// Appends `event` to the history of `stream`, making it when there is none.
    mutating func append(_ event: RecordedEvent, toStream stream: String) {
      histories[StreamName(stream), default: .empty].events.append(event)
    }

    /// Sets every history's version to its number of events (versions are positions from 1).
    mutating func countVersions() {
      for key in Array(histories.keys) {
        let count = histories[key]?.events.count ?? 0
        histories[key]?.version = Int64(count)
      }
    }
  }
}
