@_spi(Tables) import Events

/// The states app's read model: every state with its zip codes, in list order.
///
/// Folds `StateAdded` (a state with no zip codes; adding a state twice changes nothing),
/// `ZipCodeAdded` (appends the zip code unless the state already has it), `ZipCodeModified`
/// (the zip code keeps its place under its new value; when the state already has the new value
/// the old one is dropped instead, as the decider's state does) and `ZipCodeRemoved`. A zip code
/// event for a state never added adds the state first, so no zip code in the log is lost.
///
/// **Views.** ``states``: the states sorted by name (ignoring case and diacritics, see
/// `NameOrdering`), each with its zip codes in list order; ``zipCodes(in:)``.
///
/// **JSON** (`encode(to:options:)`, options unused):
/// `{"states":[{"name":"Alabama","zipCodes":["35004","35005"]},...]}`.
///
/// **Entries** (keyed by state name): one field, `zipCodes`: the zip codes in list order joined
/// by `, ` (empty for a state with none).
///
/// **Checkpoint** (version 1): a varint count of states, then per state its name, a varint count
/// of zip codes and each zip code, as strings, in list order.
public struct ZipCodeList: EntityTableModel {
  public static let name = "zipcodes"
  public static let checkpointVersion = 1

  private(set) var table = EntityTable<StateName, ZipCodeSequence>()

  public init() {}

  // MARK: Folding

  public mutating func apply(_ event: DomainEvent, at context: EventContext) {
    switch event {
    case .state(.stateAdded(let added)):
      if !table.contains(added.state) { table.set(added.state, ZipCodeSequence()) }
    case .state(.zipCodeAdded(let added)):
      if !table.update(added.state, { $0.append(added.zipCode) }) {
        var zipCodes = ZipCodeSequence()
        zipCodes.append(added.zipCode)
        table.set(added.state, zipCodes)
      }
    case .state(.zipCodeModified(let modified)):
      table.update(modified.state) { $0.replace(modified.from, with: modified.to) }
    case .state(.zipCodeRemoved(let removed)):
      table.update(removed.state) { $0.remove(removed.zipCode) }
    default:
      return
    }
  }

  /// Folds one states event.
  public mutating func apply(_ event: USStateEvent) {
    apply(.state(event), at: .unpositioned)
  }

  // MARK: State and views

  /// The number of states.
  /// The states, sorted by name, each with its zip codes in list order.
  /// - Complexity: O(s log s + z) for s states and z zip codes.
  public var states: [StateZipCodes] {
    let order = NameOrdering.sortedPositions(
      names: table.keys.map(\.rawValue), ids: table.keys)
    return order.map { position in
      StateZipCodes(name: table.keys[position], zipCodes: table.value(at: position).zipCodes)
    }
  }

  /// The zip codes of `state` in list order, or `nil` when there is no such state.
  public func zipCodes(in state: StateName) -> [ZipCode]? {
    table[state]?.zipCodes
  }

  public func encode(to writer: inout JSONWriter, options: ViewOptions) {
    writer.beginObject()
    writer.member("states", objects: states) { writer, state in
      writer.field("name", state.name.rawValue)
      writer.field("zipCodes", state.zipCodes.map(\.rawValue))
    }
    writer.endObject()
  }

  // MARK: Entries

  static func entry(_ zipCodes: ZipCodeSequence) -> ReadModelEntry {
    var entry = ReadModelEntry()
    entry.append("zipCodes", zipCodes.zipCodes.map(\.rawValue).joined(separator: ", "))
    return entry
  }

  /// Checks the storage's invariants; for tests.
  func checkInvariants() {
    table.checkInvariants()
    for zipCodes in table.values { zipCodes.checkInvariants() }
  }

  // MARK: Checkpoint

  public func write(to writer: inout BinaryWriter) {
    table.write(to: &writer) { zipCodes, writer in
      writer.writeCount(zipCodes.count)
      for zipCode in zipCodes.inOrder { writer.writeString(zipCode.rawValue) }
    }
  }

  public init(from reader: inout BinaryReader) throws(ProjectionsError) {
    let count = try reader.readCount("the number of states", minimumSize: 3)
    table = EntityTable(minimumCapacity: count)
    for _ in 0..<count {
      let start = reader.offset
      let name = try reader.readIdentifier(StateName.init, "a state name")
      let zipCount = try reader.readCount("the number of zip codes", minimumSize: 6)
      var zipCodes = ZipCodeSequence(minimumCapacity: zipCount)
      for _ in 0..<zipCount {
        let zipOffset = reader.offset
        let zipCode = try reader.readIdentifier(ZipCode.init, "a zip code")
        guard zipCodes.append(zipCode) else {
          throw reader.repeated(
            "state '\(name)' zip codes", zipCode, expected: "each zip code once", at: zipOffset)
        }
      }
      guard table.appendDecoded(name, zipCodes) else {
        throw reader.repeated("a state name", name, expected: "each state once", at: start)
      }
    }
  }
}

/// A state and its zip codes, as the list of a state's zips shows them.
public struct StateZipCodes: Sendable, Equatable, Hashable {
  /// The state.
  public var name: StateName
  /// In list order: where they were added, a modified one where the old value was.
  public var zipCodes: [ZipCode]
}

/// A state's zip codes in list order, each once, with O(1) lookup, modification and removal
/// (real states have tens of thousands of zip codes).
///
/// Zip codes sit in slots, found through a `ByteKeyedTable`; a removal marks its slot empty, so
/// every other zip code keeps its slot and its indexed position stays right. Once more than
/// half the slots are empty they are compacted (amortised O(1) a removal). Two sequences are
/// equal when they list the same zip codes in the same order, however many empty slots they
/// have.
struct ZipCodeSequence: Sendable, Equatable {
  /// The zip codes by slot; an empty slot keeps its last value, which nothing reads.
  private var slots: [ZipCode] = []
  /// Which slots hold a zip code.
  private var isFilled: [Bool] = []
  private var positions = ByteKeyedTable<ZipCode>()

  init() {}

  init(minimumCapacity capacity: Int) {
    slots.reserveCapacity(capacity)
    isFilled.reserveCapacity(capacity)
    positions = ByteKeyedTable(minimumCapacity: capacity)
  }

  /// The number of zip codes.
  var count: Int { positions.count }

  /// The zip codes in order.
  var zipCodes: [ZipCode] {
    var result: [ZipCode] = []
    result.reserveCapacity(count)
    result.append(contentsOf: inOrder)
    return result
  }

  /// The zip codes in order, without an array.
  var inOrder: some Sequence<ZipCode> {
    zip(slots, isFilled).lazy.filter(\.1).map(\.0)
  }

  /// Appends `zipCode` unless it is there already.
  /// - Returns: whether it was appended.
  @discardableResult
  mutating func append(_ zipCode: ZipCode) -> Bool {
    let end = slots.count
    guard positions.position(of: zipCode, in: slots, insertingAt: end) == end else {
      return false
    }
    slots.append(zipCode)
    isFilled.append(true)
    return true
  }

  /// Puts `new` in `old`'s place; when `new` is already there, removes `old` instead.
  mutating func replace(_ old: ZipCode, with new: ZipCode) {
    guard old != new, let position = positions.remove(old, in: slots) else { return }
    // Two probe sequences in all: `old` out, `new` in unless it is there already.
    if positions.position(of: new, in: slots, insertingAt: position) == position {
      slots[position] = new
    } else {
      emptySlot(at: position)
    }
  }

  /// Removes `zipCode` if it is there.
  mutating func remove(_ zipCode: ZipCode) {
    guard let position = positions.remove(zipCode, in: slots) else { return }
    emptySlot(at: position)
  }

  private mutating func emptySlot(at position: Int) {
    isFilled[position] = false
    let emptySlots = slots.count - positions.count
    if emptySlots > 16, emptySlots * 2 > slots.count { compact() }
  }

  private mutating func compact() {
    let zipCodes = self.zipCodes
    self = ZipCodeSequence(minimumCapacity: zipCodes.count)
    for zipCode in zipCodes { append(zipCode) }
  }

  static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.count == rhs.count && lhs.inOrder.elementsEqual(rhs.inOrder)
  }

  /// Checks the index against the slots; for tests.
  func checkInvariants() {
    precondition(slots.count == isFilled.count, "one flag a slot")
    precondition(isFilled.filter { $0 }.count == positions.count, "zip code count")
    for (position, zipCode) in slots.enumerated() where isFilled[position] {
      precondition(
        positions.position(of: zipCode, in: slots) == position, "\(zipCode)'s slot")
    }
  }
}
