import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// The writer's index saved beside the log (`<log>.index`), read in place, a page at a time: a
/// writer that opens a log of ten million events looks up the streams and ids it needs
/// in the file instead of reading the log, and reads only the lines appended since the file was
/// saved.
///
/// It is a cache, never trusted past what it can check:
/// - it is bound to its log by the log file's identity (`LogFileIdentity`: an index copied
///   beside another copy of the log is never used) and by the checksum of the log's first bytes
///   and of the last line it covers, all compared with the log on open; a log that is shorter,
///   replaced or rewritten fails the check and the index is ignored (and rebuilt from the log);
/// - every 4 KiB page of the file carries a CRC-32C, checked the first time a lookup touches the
///   page; a bad page makes the lookup throw `LogIndexFile.Damaged`, and the writer drops the
///   file and reads the log instead;
/// - it is written whole to a temporary file and renamed over the old one, so `kill -9` during
///   a save leaves the old index or the new one, never a mix.
///
/// Layout (little-endian; see docs/FORMAT.md, "The writer's index"):
/// `header (128 bytes) | stream directory | stream names | line offsets | event ids | page CRCs`.
/// The directory holds one 32-byte entry per stream, sorted by the name's bytes: where its name
/// is, where its line offsets start, how many there are. Line offsets are grouped by stream,
/// in version order. Event ids are 24-byte entries (id high, id low, line offset) sorted by id.
///
/// Not thread-safe (lookups record which pages they checked): an `EventLog` uses it under its
/// lock, a reader on its own thread.
final class LogIndexFile: @unchecked Sendable {
  /// The file is damaged: a page's checksum or an entry does not hold.
  struct Damaged: Error, Equatable {
    var problem: String
  }

  static let magic: UInt64 = 0x3258_4449_594C_5052  // "RPLYIDX2"
  static let headerSize = 128
  static let pageSize = 4096
  static let directoryEntrySize = 32
  static let idEntrySize = 24
  /// How many of the log's first bytes the binding checksum covers.
  static let prefixLimit: Int64 = 4096

  /// The index file's path for a log.
  static func path(forLog logPath: String) -> String { LogFiles(logPath: logPath).indexPath }

  /// The log offset just past the last line the file covers.
  let coveredEnd: Int64
  /// The sequence number of the last line it covers.
  let lastSequence: Int64
  /// Where the last covered line starts.
  let lastLineStart: Int64
  /// How many streams and events it holds.
  let streamCount: Int
  let eventCount: Int

  /// Read with `pread`, a page at a time, rather than mapped: a lookup touches a few scattered
  /// pages, and a mapping would count whole page-cache folios around them in the process's
  /// resident size (megabytes for a binary search over the ids).
  private let file: FileDescriptor
  private let header: Header
  private let directoryStart: Int
  private let namesStart: Int
  private let namesLength: Int
  private let offsetsStart: Int
  private let idsStart: Int
  private let pageTableStart: Int
  private let pageCount: Int
  /// Pages read and checked so far.
  private var pages: [Int: [UInt8]] = [:]
  /// How many pages of data lookups have read so far (each once).
  var pagesRead: Int { pages.count }
  /// Blocks of 1024 page checksums read so far.
  private var checksumBlocks: [Int: [UInt8]] = [:]
  /// The last block `withSequentialBytes` read.
  private var block: (start: Int, bytes: [UInt8]) = (0, [])

  private init(file: FileDescriptor, header: Header) {
    self.file = file
    self.header = header
    coveredEnd = header.coveredEnd
    lastSequence = header.lastSequence
    lastLineStart = header.lastLineStart
    streamCount = header.streamCount
    eventCount = header.eventCount
    let layout = header.layout
    directoryStart = layout.directoryStart
    namesStart = layout.namesStart
    namesLength = header.namesLength
    offsetsStart = layout.offsetsStart
    idsStart = layout.idsStart
    pageTableStart = layout.pageTableStart
    pageCount = layout.pageCount
  }

  deinit {
    file.close()
  }

  // MARK: Opening

  /// Opens the index of the log at `logPath` and checks it against the log, whose committed
  /// lines end at `committedEnd`.
  /// - Returns: the index, or why it cannot be used (missing, damaged, another log's, stale).
  static func open(
    forLog logPath: String, log: FileDescriptor, committedEnd: Int64
  ) -> Result<LogIndexFile, Damaged> {
    let path = path(forLog: logPath)
    guard FileDescriptor.status(atPath: path) != nil else {
      return .failure(Damaged(problem: "there is no index file"))
    }
    let file: FileDescriptor
    let headerBytes: [UInt8]
    let size: Int
    do throws(EngineError) {
      file = try FileDescriptor.open(path, .readOnly)
    } catch {
      return .failure(Damaged(problem: error.description))
    }
    do throws(EngineError) {
      size = Int(try file.status().size)
      headerBytes = try file.readFully(count: headerSize, at: 0)
    } catch {
      file.close()
      return .failure(Damaged(problem: error.description))
    }
    guard size >= headerSize + 4, headerBytes.count == headerSize else {
      file.close()
      return .failure(Damaged(problem: "\(size) bytes is too short for an index"))
    }
    let header: Header
    switch headerBytes.withUnsafeBytes({ Header.read($0, fileSize: size) }) {
    case .success(let read): header = read
    case .failure(let damaged):
      file.close()
      return .failure(damaged)
    }
    // From here the descriptor belongs to the index (closed by deinit).
    let index = LogIndexFile(file: file, header: header)
    if let problem = index.bindingProblem(log: log, committedEnd: committedEnd) {
      return .failure(Damaged(problem: problem))
    }
    return .success(index)
  }

  /// Why the log is not the one this index was made from (or has lost lines it covers).
  private func bindingProblem(log: FileDescriptor, committedEnd: Int64) -> String? {
    guard coveredEnd <= committedEnd else {
      return "it covers \(coveredEnd) bytes, but the log's committed lines end at \(committedEnd)"
    }
    do throws(EngineError) {
      let identity = try LogFileIdentity(of: log)
      guard identity == header.log else {
        return "it was made from another file (\(header.log)), not this log (\(identity))"
      }
    } catch {
      return error.description
    }
    guard coveredEnd > 0 else { return nil }
    guard lastLineStart >= 0, lastLineStart < coveredEnd else {
      return "its last line's start (\(lastLineStart)) is outside what it covers"
    }
    do throws(EngineError) {
      let prefix = try log.readFully(count: Int(min(coveredEnd, Self.prefixLimit)), at: 0)
      guard prefix.withUnsafeBytes({ CRC32C.checksum($0) }) == header.prefixChecksum else {
        return "it was made from another log (the log's first bytes differ)"
      }
      let last = try log.readFully(count: Int(coveredEnd - lastLineStart), at: lastLineStart)
      guard last.withUnsafeBytes({ CRC32C.checksum($0) }) == header.lastLineChecksum else {
        return "the log's line at byte \(lastLineStart) is not the one the index covers"
      }
    } catch {
      return error.description
    }
    return nil
  }

  // MARK: Reading

  /// Reads exactly `count` bytes at `offset` of the index file.
  private func read(count: Int, at offset: Int) throws(Damaged) -> [UInt8] {
    let bytes: [UInt8]
    do throws(EngineError) {
      bytes = try file.readFully(count: count, at: Int64(offset))
    } catch {
      throw Damaged(problem: error.description)
    }
    guard bytes.count == count else {
      throw Damaged(problem: "it ends at byte \(offset + bytes.count), before its data does")
    }
    return bytes
  }

  /// The stored checksum of page `number`.
  private func storedChecksum(ofPage number: Int) throws(Damaged) -> UInt32 {
    let block = number / 1024
    let bytes: [UInt8]
    if let cached = checksumBlocks[block] {
      bytes = cached
    } else {
      let first = block * 1024
      let count = min(1024, pageCount - first)
      bytes = try read(count: 4 * count, at: pageTableStart + 4 * first)
      checksumBlocks[block] = bytes
    }
    let position = 4 * (number % 1024)
    return bytes.withUnsafeBytes {
      UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: UInt32.self))
    }
  }

  /// Checks that `bytes`, the data of pages `first...`, match their stored checksums.
  private func check(_ bytes: UnsafeRawBufferPointer, firstPage first: Int) throws(Damaged) {
    var page = first
    var start = 0
    while start < bytes.count {
      let end = min(start + Self.pageSize, bytes.count)
      let actual = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
      guard actual == (try storedChecksum(ofPage: page)) else {
        throw Damaged(problem: "page \(page) fails its checksum")
      }
      page += 1
      start = end
    }
  }

  /// Page `number`'s data, read and checked once.
  private func page(_ number: Int) throws(Damaged) -> [UInt8] {
    if let cached = pages[number] { return cached }
    let start = number * Self.pageSize
    let end = min(start + Self.pageSize, pageTableStart)
    guard number >= 0, start < end else {
      throw Damaged(problem: "page \(number) lies outside the index's data")
    }
    let bytes = try read(count: end - start, at: start)
    let actual = bytes.withUnsafeBytes { CRC32C.checksum($0) }
    guard actual == (try storedChecksum(ofPage: number)) else {
      throw Damaged(problem: "page \(number) fails its checksum")
    }
    pages[number] = bytes
    return bytes
  }

  /// `count` checked bytes at `offset` of the data.
  private func bytes(at offset: Int, count: Int) throws(Damaged) -> [UInt8] {
    guard offset >= 0, count >= 0, offset <= pageTableStart - count else {
      throw Damaged(problem: "bytes \(offset)..<\(offset + count) lie outside the index's data")
    }
    var result: [UInt8] = []
    result.reserveCapacity(count)
    var position = offset
    while position < offset + count {
      let number = position / Self.pageSize
      let page = try page(number)
      let from = position - number * Self.pageSize
      let take = min(page.count - from, offset + count - position)
      result += page[from..<from + take]
      position += take
    }
    return result
  }

  /// The little-endian word at `offset` of `bytes`.
  private static func word(_ bytes: [UInt8], _ offset: Int) -> UInt64 {
    bytes.withUnsafeBytes {
      UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }
  }

  /// Calls `body` with the checked bytes of `range` of the data, read through a block of at
  /// least 1 MiB that calls for ranges further on reuse: for copying whole sections into a new
  /// index, front to back, with one read per block.
  func withSequentialBytes<T>(
    _ range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> T
  ) throws -> T {
    guard range.lowerBound >= 0, range.upperBound <= pageTableStart else {
      throw Damaged(problem: "bytes \(range) lie outside the index's data")
    }
    if range.isEmpty { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
    if range.lowerBound < block.start || range.upperBound > block.start + block.bytes.count {
      let start = range.lowerBound / Self.pageSize * Self.pageSize
      let wanted = max(range.upperBound, start + 256 * Self.pageSize)
      let end = min(
        (wanted + Self.pageSize - 1) / Self.pageSize * Self.pageSize, pageTableStart)
      let bytes = try read(count: end - start, at: start)
      try bytes.withUnsafeBytes { raw in try check(raw, firstPage: start / Self.pageSize) }
      block = (start, bytes)
    }
    let offset = block.start
    return try block.bytes.withUnsafeBytes { raw in
      try body(
        UnsafeRawBufferPointer(
          rebasing: raw[(range.lowerBound - offset)..<(range.upperBound - offset)]))
    }
  }

  /// One stream's directory entry.
  struct Stream {
    /// The name's bytes.
    var name: [UInt8]
    /// The position of its first line offset in the offsets section.
    var firstOffset: Int
    /// How many events it has: its version.
    var count: Int
  }

  /// The `position`th stream of the directory (in name order).
  func stream(at position: Int) throws(Damaged) -> Stream {
    guard position >= 0, position < streamCount else {
      throw Damaged(problem: "there is no stream \(position)")
    }
    let entry = try bytes(
      at: directoryStart + position * Self.directoryEntrySize, count: Self.directoryEntrySize)
    let nameStart = Self.word(entry, 0)
    let nameLength = Self.word(entry, 8)
    let firstOffset = Self.word(entry, 16)
    let count = Self.word(entry, 24)
    guard nameStart <= UInt64(namesLength), nameLength <= UInt64(namesLength) - nameStart,
      firstOffset <= UInt64(eventCount), count <= UInt64(eventCount) - firstOffset
    else {
      throw Damaged(problem: "stream entry \(position) points outside the index")
    }
    return Stream(
      name: try bytes(at: namesStart + Int(nameStart), count: Int(nameLength)),
      firstOffset: Int(firstOffset), count: Int(count))
  }

  /// The directory position of the stream named `name` (its bytes), or where it would be
  /// inserted (`found == false`).
  ///
  /// Halving, not guessing as `lineOffset(of:)` does: names are not spread evenly (categories,
  /// decimal suffixes), and guessing from their bytes read more pages than halving (13 against
  /// 10 a lookup among the 6 000 streams of `streamLookupsMatchTheSortedNames`, 2026-11-26).
  func search(_ name: UnsafeRawBufferPointer) throws(Damaged) -> (position: Int, found: Bool) {
    var low = 0
    var high = streamCount
    while low < high {
      let middle = (low + high) / 2
      let order = try stream(at: middle).name.withUnsafeBytes { Self.compare($0, name) }
      if order == 0 { return (middle, true) }
      if order < 0 { low = middle + 1 } else { high = middle }
    }
    return (low, false)
  }

  /// The stream named `name`, if the index holds it.
  func stream(named name: UnsafeRawBufferPointer) throws(Damaged) -> Stream? {
    let (position, found) = try search(name)
    return found ? try stream(at: position) : nil
  }

  /// The line offsets of a stream, in version order.
  func lineOffsets(of stream: Stream) throws(Damaged) -> [Int64] {
    let bytes = try bytes(at: offsetsStart + 8 * stream.firstOffset, count: 8 * stream.count)
    return (0..<stream.count).map { Int64(bitPattern: Self.word(bytes, 8 * $0)) }
  }

  /// Where a stream's line offsets are in the data (for copying them into a new index).
  func lineOffsetRange(of stream: Stream) -> Range<Int> {
    let start = offsetsStart + 8 * stream.firstOffset
    return start..<start + 8 * stream.count
  }

  /// The line offset of the event with this id, if the index holds it.
  ///
  /// Ids are random or digests, so their values are spread evenly over the sorted entries: the
  /// search guesses an id's place from its value (interpolation), reads the page that holds
  /// that place, and either finds the id among the page's entries or goes on past the whole
  /// page with tighter bounds. A page read is a disk read when the page is not cached, and a
  /// writer looks up every id it appends: a random id among a million costs about 2 pages this
  /// way, against 13 halving. Ids that are not spread evenly (chosen by hand, sharing their
  /// first bytes) cannot mislead it for long: after `guessLimit` guesses it halves.
  func lineOffset(of id: EventID) throws(Damaged) -> Int64? {
    // The entries that may hold `id` are low..<high; every id among them has a high word in
    // lowKey...highKey (the neighbours' high words, once known).
    var low = 0
    var high = eventCount
    var lowKey: UInt64 = 0
    var highKey = UInt64.max
    var guesses = 0
    while low < high {
      let probe: Int
      // lowKey and highKey are high words of entries found below and above `id`, so `id.high`
      // lies between them even in an index whose ids are out of order: no overflow.
      if guesses < Self.guessLimit, lowKey < highKey {
        guesses += 1
        let share = Double(id.high - lowKey) / Double(highKey - lowKey)
        probe = low + min(high - low - 1, Int(share * Double(high - low)))
      } else {
        probe = low + (high - low) / 2
      }
      let page = idEntriesOnPage(of: probe, within: low..<high)
      let first = try idEntry(at: page.lowerBound)
      if id < first.id {
        (high, highKey) = (page.lowerBound, first.id.high)
        continue
      }
      if id == first.id { return first.offset }
      let last = try idEntry(at: page.upperBound - 1)
      if id > last.id {
        (low, lowKey) = (page.upperBound, last.id.high)
        continue
      }
      if id == last.id { return last.offset }
      // Between the page's first and last entries: halve among them, on the page just read.
      var inner = page.lowerBound + 1..<page.upperBound - 1
      while !inner.isEmpty {
        let middle = inner.lowerBound + inner.count / 2
        let entry = try idEntry(at: middle)
        if entry.id == id { return entry.offset }
        inner = entry.id < id ? middle + 1..<inner.upperBound : inner.lowerBound..<middle
      }
      return nil
    }
    return nil
  }

  /// How many times `lineOffset(of:)` guesses an id's place from its value before it halves.
  static let guessLimit = 4

  /// The id entries within `bounds` that lie wholly on the page where entry `position` starts,
  /// so that one page read answers for all of them; just `position` when the entry runs onto
  /// the next page and no other entry of `bounds` is on its page.
  func idEntriesOnPage(of position: Int, within bounds: Range<Int>) -> Range<Int> {
    let page = (idsStart + position * Self.idEntrySize) / Self.pageSize
    let pageStart = page * Self.pageSize - idsStart
    let pageEnd = pageStart + Self.pageSize
    // Entries starting at or after the page's start and ending at or before its end.
    let first = max(
      bounds.lowerBound, (max(pageStart, 0) + Self.idEntrySize - 1) / Self.idEntrySize)
    let end = min(bounds.upperBound, pageEnd / Self.idEntrySize)
    return first < end ? first..<end : position..<position + 1
  }

  /// The `position`th id entry (in id order).
  func idEntry(at position: Int) throws(Damaged) -> (id: EventID, offset: Int64) {
    guard position >= 0, position < eventCount else {
      throw Damaged(problem: "there is no id entry \(position)")
    }
    let entry = try bytes(at: idsStart + position * Self.idEntrySize, count: Self.idEntrySize)
    return (
      EventID(high: Self.word(entry, 0), low: Self.word(entry, 8)),
      Int64(bitPattern: Self.word(entry, 16))
    )
  }

  /// Where id entries are in the data (for copying them into a new index).
  func idEntryRange(_ positions: Range<Int>) -> Range<Int> {
    idsStart + positions.lowerBound * Self.idEntrySize..<idsStart + positions.upperBound
      * Self.idEntrySize
  }

  /// Orders names by their bytes (a shorter name before a longer one it begins).
  static func compare(_ left: UnsafeRawBufferPointer, _ right: UnsafeRawBufferPointer) -> Int {
    let common = min(left.count, right.count)
    if common > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
      let order = memcmp(leftBase, rightBase, common)
      if order != 0 { return Int(order) }
    }
    return left.count - right.count
  }
}
