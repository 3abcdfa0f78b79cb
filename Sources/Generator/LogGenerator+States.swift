import Engine
import Events

/// A generated state: its name once added, and its zip codes, each encoded as a number
/// (`12345` as 12345; ZIP+4 `12345-6789` as 100000 + 123456789).
struct GeneratedState: Sendable {
  var name: StateName?
  /// The zip codes, in no particular order (the order of the state's list does not matter to
  /// the generator).
  var zipCodes: [UInt32] = []
  var members: Set<UInt32> = []
}

extension LogGenerator {
  /// `ZipCodeAdded` of a code the state lacks; when the state drawn is not added yet, its
  /// `StateAdded` instead.
  mutating func addZipCode() -> DomainEvent {
    let slot = random.below(states.count)
    guard let name = states[slot].name else { return addState(slot) }
    let code = newZipCode(in: slot)
    states[slot].zipCodes.append(code)
    states[slot].members.insert(code)
    return .state(.zipCodeAdded(ZipCodeAdded(state: name, zipCode: Self.zipCode(code))))
  }

  /// `ZipCodeModified` of one of a state's codes into one it lacks.
  mutating func modifyZipCode() -> DomainEvent? {
    guard let (slot, name, index) = randomZipCode() else { return nil }
    let from = states[slot].zipCodes[index]
    let to = newZipCode(in: slot)
    states[slot].zipCodes[index] = to
    states[slot].members.remove(from)
    states[slot].members.insert(to)
    return .state(
      .zipCodeModified(
        ZipCodeModified(state: name, from: Self.zipCode(from), to: Self.zipCode(to))))
  }

  /// `ZipCodeRemoved` of one of a state's codes.
  mutating func removeZipCode() -> DomainEvent? {
    guard let (slot, name, index) = randomZipCode() else { return nil }
    let code = states[slot].zipCodes[index]
    states[slot].zipCodes.swapAt(index, states[slot].zipCodes.count - 1)
    states[slot].zipCodes.removeLast()
    states[slot].members.remove(code)
    return .state(.zipCodeRemoved(ZipCodeRemoved(state: name, zipCode: Self.zipCode(code))))
  }

  /// `StateAdded` for the state in `slot`, under its real name, or `<name> 2`, `<name> 3`, ...
  /// when a log being appended to already has a state of that name.
  private mutating func addState(_ slot: Int) -> DomainEvent {
    let base = GeneratorText.states[slot].name
    var text = base
    var suffix = 2
    while isStreamTaken(EntityKind.state.streamName(for: text)) {
      text = "\(base) \(suffix)"
      suffix += 1
    }
    let name = Self.valid(try? StateName(text), "state name '\(text)'")
    states[slot].name = name
    addedStates.append(slot)
    return .state(.stateAdded(StateAdded(state: name)))
  }

  /// An added state that has zip codes, its name, and the index of one of its codes; `nil` when
  /// the state drawn has none.
  private mutating func randomZipCode() -> (slot: Int, name: StateName, index: Int)? {
    guard !addedStates.isEmpty else { return nil }
    let slot = random.element(of: addedStates)
    guard let name = states[slot].name, !states[slot].zipCodes.isEmpty else { return nil }
    return (slot, name, random.below(states[slot].zipCodes.count))
  }

  /// A zip code of the state's range that the state lacks; one in seven is ZIP+4.
  private mutating func newZipCode(in slot: Int) -> UInt32 {
    let prefixes = GeneratorText.states[slot].zipPrefixes
    var attempt = 0
    while true {
      let fiveDigits = UInt32((prefixes.lowerBound + random.below(prefixes.count)) * 100)
      let code: UInt32
      // A crowded state gets ZIP+4 codes, of which there are always more.
      if attempt >= 4 || random.chance(1.0 / 7) {
        code =
          100_000 + (fiveDigits + UInt32(random.below(100))) * 10_000
          + UInt32(random.below(10_000))
      } else {
        code = fiveDigits + UInt32(random.below(100))
      }
      if !states[slot].members.contains(code) { return code }
      attempt += 1
    }
  }

  /// The zip code a number stands for.
  static func zipCode(_ code: UInt32) -> ZipCode {
    let text =
      code < 100_000
      ? padded(Int(code), digits: 5)
      : padded(Int(code - 100_000) / 10_000, digits: 5) + "-"
        + padded(Int(code - 100_000) % 10_000, digits: 4)
    return valid(try? ZipCode(text), "zip code '\(text)'")
  }
}
