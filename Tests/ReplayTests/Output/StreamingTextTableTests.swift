import Testing

@testable import replay

@Suite struct StreamingTextTableTests {
  /// Collects what a table emits, so a test can see when each line left the table.
  final class Sink {
    var chunks: [String] = []
  }

  private func table(window: Int, sink: Sink) -> StreamingTextTable {
    StreamingTextTable(
      [.init(title: "SEQ", alignment: .right), .init(title: "STREAM")], window: window
    ) { sink.chunks.append($0) }
  }

  @Test func rowsAfterTheWindowArePrintedAsTheyArriveWithTheWindowsWidths() {
    let sink = Sink()
    var table = table(window: 2, sink: sink)
    table.append(["1", "a"])
    #expect(sink.chunks.isEmpty)
    table.append(["2", "bb"])
    #expect(sink.chunks == ["SEQ  STREAM\n  1  a\n  2  bb\n"])
    table.append(["3", "c"])
    #expect(sink.chunks.last == "  3  c\n")
    // Wider than the window's column: printed whole, nothing cut.
    table.append(["10000", "a-much-longer-stream"])
    #expect(sink.chunks.last == "10000  a-much-longer-stream\n")
    table.finish()
    #expect(sink.chunks.count == 3)
    #expect(table.rowCount == 4)
  }

  @Test func aTableShorterThanItsWindowIsPrintedWholeOnFinish() {
    let sink = Sink()
    var table = table(window: 1000, sink: sink)
    table.append(["7", "contact-13"])
    table.append(["12", "x"])
    #expect(sink.chunks.isEmpty)
    table.finish()
    #expect(sink.chunks == ["SEQ  STREAM\n  7  contact-13\n 12  x\n"])
    table.finish()
    #expect(sink.chunks.count == 1)
  }

  @Test func anEmptyTablePrintsNothing() {
    let sink = Sink()
    var table = table(window: 3, sink: sink)
    table.finish()
    #expect(sink.chunks.isEmpty)
  }

  @Test func theWindowedTableMatchesTheWholeTableWhenTheWindowHoldsEveryRow() {
    let rows = (1...50).map {
      [String($0 * 37), "stream-\(String(repeating: "x", count: $0 % 9))"]
    }
    var whole = TextTable([.init(title: "SEQ", alignment: .right), .init(title: "STREAM")])
    for row in rows { whole.append(row) }
    let sink = Sink()
    var streamed = table(window: 50, sink: sink)
    for row in rows { streamed.append(row) }
    streamed.finish()
    #expect(sink.chunks.joined() == whole.render())
  }
}
