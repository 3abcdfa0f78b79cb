import Engine

// MARK: An events file's lines (`replay append --file`)

extension AppendCommand {
  /// Every line of an events file read and checked by the engine's one decoder of them
  /// (`EventsFile`): the writes in line order, and every invalid line's message in line order.
  static func parseLines(_ bytes: [UInt8], name: String) -> (
    writes: [EventLog.StreamWrite], problems: [String]
  ) {
    let (writes, problems) = EventsFile.decode(bytes, name: name)
    return (writes, problems.map(\.message))
  }
}
