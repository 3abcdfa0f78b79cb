/// A `TextTable` printed while its rows arrive, in memory bounded by a window of rows.
///
/// The column widths come from the header and the first `window` rows: those rows are held,
/// then printed with the header, and every later row is printed as soon as it is appended,
/// padded to the same widths. A later cell wider than its column (a longer stream name, a seq
/// with more digits) is printed whole and pushes the rest of its row: no text is cut beyond the
/// column's maximum width, and memory does not grow with the number of rows.
///
///     var table = StreamingTextTable(columns) { invocation.terminal.write($0) }
///     table.append(["1", "2026-11-01T09:00:00.000Z"])
///     table.finish()
struct StreamingTextTable {
  /// How many rows decide the column widths, unless a caller says otherwise.
  static let defaultWindow = 1000

  private let table: TextTable
  private let window: Int
  private let emit: (String) -> Void
  private var held: [[String]] = []
  private var widths: [Int]?
  /// How many rows were appended.
  private(set) var rowCount = 0

  /// A table with `columns` whose lines are passed to `emit`.
  init(
    _ columns: [TextTable.Column], window: Int = defaultWindow, emit: @escaping (String) -> Void
  ) {
    table = TextTable(columns)
    self.window = max(1, window)
    self.emit = emit
  }

  /// Adds a row: held while the widths are not yet known, else printed at once.
  mutating func append(_ row: [String]) {
    rowCount += 1
    let cells = table.cells(of: row)
    if let widths {
      emit(table.line(cells, widths: widths))
      return
    }
    held.append(cells)
    if held.count >= window { printHeld() }
  }

  /// Prints what is still held; call it once, after the last row (nothing if no row came).
  mutating func finish() {
    if widths == nil, !held.isEmpty { printHeld() }
  }

  private mutating func printHeld() {
    let header = table.cells(of: table.columns.map(\.title))
    let widths = TextTable.widths(of: [header] + held, columns: table.columns.count)
    var text = table.line(header, widths: widths)
    for row in held { text += table.line(row, widths: widths) }
    emit(text)
    held = []
    self.widths = widths
  }
}
