import Events
import Foundation
import Testing

@testable import Engine

/// The saved writer index (`<log>.index`): used when it checks against the log, ignored (and the
/// log read instead) when it does not, and never the cause of a wrong answer.
@Suite struct LogIndexFileTests {
  /// A configuration that saves the index after every `threshold` events.
  func configuration(
    threshold: Int? = 1, reports: ReportCollector? = nil
  ) -> EventLog.Configuration {
    var configuration = testConfiguration(reports: reports)
    configuration.indexSaveThreshold = threshold
    return configuration
  }

  /// Appends `count` events spread over a few streams, with names that are equal as text but
  /// not as bytes among them.
  func fill(_ log: EventLog, count: Int, generator: inout SplitMix64) throws {
    let streams = [
      "contact-1", "contact-2", "contact-\u{E9}", "contact-e\u{301}", "location-a", "state-Ohio",
    ]
    for _ in 0..<count {
      let stream = generator.pick(streams)
      try log.append([proposed("ContactFavorited", #"{"id":"x"}"#)], to: stream)
    }
  }

  /// A log at `path` of one stream, `contact-1`, an event for each of `ids`, in one write that
  /// saves the index.
  func writeStream(of ids: [EventID], to path: String) throws {
    let log = try EventLog(path: path, configuration: configuration())
    _ = try log.importEvents([
      EventLog.StreamWrite(
        stream: "contact-1",
        events: ids.map { proposed("ContactFavorited", #"{"id":"1"}"#, id: $0) })
    ])
  }

  /// Every stream's events as the log holds them, found by scanning it, keyed by the name's
  /// bytes (a `String` key would merge "contact-é" with its decomposed twin).
  func scanned(_ path: String) throws -> [(name: String, sequences: [Int64])] {
    var streams: [[UInt8]: (name: String, sequences: [Int64])] = [:]
    for event in try readAll(path) {
      streams[Array(event.stream.utf8), default: (event.stream, [])].sequences.append(
        event.sequence)
    }
    return Array(streams.values)
  }

  /// Whether the reader's stream lookup finds what a scan finds, one stream at a time.
  func readerAgrees(_ path: String, _ expected: [(name: String, sequences: [Int64])]) throws
    -> Bool
  {
    let reader = LogReader(path: path)
    for (name, sequences) in expected {
      let found = try reader.events(inStreams: [name])
      guard found.count == 1, found[name]?.events.map(\.sequence) == sequences else {
        return false
      }
    }
    return try reader.events(inStreams: ["contact-404"]).isEmpty
  }

  /// Every stream asked for at once, from the writer, from a reader through the index and from
  /// a reader scanning: the twins ("contact-é" as one scalar and decomposed) stay two streams,
  /// since names compare as bytes.
  @Test func twinNamesAskedForTogetherStayTwoStreams() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("twinNamesAskedForTogetherStayTwoStreams"))
      let log = try EventLog(path: path, configuration: configuration(threshold: 7))
      for stream in ["contact-\u{E9}", "contact-e\u{301}"] {
        try log.append([proposed("ContactFavorited", #"{"id":"x"}"#)], to: stream)
      }
      try fill(log, count: 60, generator: &generator)
      let expected = try scanned(path)
      let names = expected.map(\.name)
      let fromWriter = try log.events(inStreams: names)
      let throughIndex = try LogReader(path: path).events(inStreams: names)
      try? FileManager.default.removeItem(atPath: path + ".index")
      let scanning = try LogReader(path: path).events(inStreams: names)
      #expect(expected.count == 6)
      for found in [fromWriter, throughIndex, scanning] {
        #expect(found.count == expected.count)
        for (name, sequences) in expected {
          #expect(found[name]?.events.map(\.sequence) == sequences)
          #expect(found[name]?.version == Int64(sequences.count))
        }
      }
    }
  }

  /// The radix sort of a save's recent ids gives what a comparison sort gives, with ids that
  /// share their high word among them, below and above the size where it takes over.
  /// The saved index's writer writes what it is given, in order, then a CRC-32C of every
  /// 4 KiB page: pieces of random sizes, some larger than its 1 MiB buffer.
  @Test func thePagedWriterWritesItsPiecesAndTheirPageChecksums() throws {
    try withTemporaryDirectory { directory in
      var generator = SplitMix64(seed: 11)
      var expected: [UInt8] = []
      let path = directory + "/paged"
      let file = try FileDescriptor.open(path, .appendCreating)
      defer { file.close() }
      var writer = PagedWriter(file: file)
      for round in 0..<40 {
        let size: Int
        switch round % 8 {
        case 0: size = 1 << 20
        case 1: size = (1 << 20) + Int(generator.next() % 70_000)
        case 2: size = 0
        default: size = Int(generator.next() % 9_000)
        }
        let piece = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ round) }
        try piece.withUnsafeBytes { try writer.append($0) }
        expected += piece
        let word = generator.next()
        try writer.append(word)
        withUnsafeBytes(of: word.littleEndian) { expected += $0 }
      }
      try writer.finish()
      #expect(writer.count == expected.count)
      var checksums: [UInt8] = []
      var start = 0
      while start < expected.count {
        let end = min(start + LogIndexFile.pageSize, expected.count)
        let crc = expected[start..<end].withUnsafeBytes { CRC32C.checksum($0) }
        withUnsafeBytes(of: crc.littleEndian) { checksums += $0 }
        start = end
      }
      #expect(try fileBytes(path) == expected + checksums)
    }
  }

  @Test func recentIDsSortAsAComparisonSortWould() {
    var generator = SplitMix64(seed: TestSeed.make("recentIDsSortAsAComparisonSortWould"))
    for count in [0, 1, 4096, 4097, 30_000] {
      var offsets: [EventID: Int64] = [:]
      var table = EventIDTable<Int64>()
      while offsets.count < count {
        let high = generator.next() % 5 == 0 ? generator.next() % 8 : generator.next()
        let id = EventID(high: high, low: generator.next())
        if offsets[id] == nil { table.updateValue(Int64(offsets.count), forKey: id) }
        offsets[id] = Int64(offsets.count)
      }
      let sorted = LogIndexFile.sortedByID(table)
      let expected = offsets.sorted { $0.key < $1.key }
      #expect(sorted.map(\.key) == expected.map(\.key))
      #expect(sorted.map(\.value) == expected.map(\.value))
    }
    // Ids that share their top bits (a user's sequential UUIDs, in reverse): one bucket.
    var table = EventIDTable<Int64>()
    for index in (0..<20_000).reversed() {
      table.updateValue(Int64(index), forKey: EventID(high: UInt64(index % 3), low: UInt64(index)))
    }
    let sorted = LogIndexFile.sortedByID(table)
    #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.key < $1.key })
    #expect(sorted.allSatisfy { $0.value == Int64($0.key.low) })
  }

  @Test func aReopenedWriterAnswersFromTheSavedIndex() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("aReopenedWriterAnswersFromTheSavedIndex"))
      do {
        let log = try EventLog(path: path, configuration: configuration(threshold: 5))
        try fill(log, count: 40, generator: &generator)
      }
      #expect(FileManager.default.fileExists(atPath: path + ".index"))
      let expected = try scanned(path)
      let reopened = try EventLog(path: path, configuration: configuration(threshold: nil))
      for (stream, sequences) in expected {
        #expect(try reopened.version(of: stream) == Int64(sequences.count))
        #expect(try reopened.events(inStream: stream).events.map(\.sequence) == sequences)
      }
      #expect(try reopened.version(of: "contact-404") == 0)
      #expect(try reopened.streamCount() == expected.count)
      #expect(
        try reopened.streamNames(withPrefix: "contact-").map { Array($0.utf8) }.sorted {
          $0.lexicographicallyPrecedes($1)
        }
          == expected.map(\.name).filter { $0.hasPrefix("contact-") }.map { Array($0.utf8) }
          .sorted { $0.lexicographicallyPrecedes($1) })
      // Every id is known, so appending one again is a duplicate, not a new event.
      let first = try readAll(path)[0]
      #expect(try reopened.contains(eventID: first.id))
      let outcome = try reopened.append(
        [ProposedEvent(id: first.id, type: first.type, data: first.data)], to: first.stream)
      #expect(outcome.map(\.isDuplicate) == [true])
      // The reader's stream lookup agrees with a scan.
      #expect(try readerAgrees(path, expected))
    }
  }

  @Test func randomAppendsReopensAndSavesMatchAScan() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("randomAppendsReopensAndSavesMatchAScan"))
      for round in 0..<12 {
        // Each round is a new process as far as the log can tell: a new writer, a random
        // threshold (sometimes never saving, so the next round reads past the saved index).
        let threshold = generator.pick([1, 3, 7, nil])
        let log = try EventLog(path: path, configuration: configuration(threshold: threshold))
        try fill(log, count: Int(generator.next() % 15), generator: &generator)
        // No event yet: the writer made no file (the first append creates it).
        guard FileManager.default.fileExists(atPath: path) else {
          #expect(try log.version(of: "contact-1") == 0, "round \(round)")
          continue
        }
        let expected = try scanned(path)
        for (stream, sequences) in expected {
          #expect(
            try log.version(of: stream) == Int64(sequences.count), "round \(round), \(stream)")
        }
        #expect(try readerAgrees(path, expected), "round \(round)")
      }
    }
  }

  @Test func streamAndCategoryReadsThroughTheIndexMatchAScan() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("streamAndCategoryReadsThroughTheIndex"))
      do {
        let log = try EventLog(path: path, configuration: configuration(threshold: 10))
        try fill(log, count: 200, generator: &generator)
        // Some lines past the saved index too.
        let other = try EventLog(path: path, configuration: configuration(threshold: nil))
        try fill(other, count: 7, generator: &generator)
      }
      #expect(FileManager.default.fileExists(atPath: path + ".index"))
      let all = try readAll(path)
      let filters = [
        EventFilter(streams: ["contact-1"]), EventFilter(streams: ["contact-\u{E9}"]),
        EventFilter(streams: ["contact-e\u{301}", "state-Ohio"]),
        EventFilter(categories: ["contact"]), EventFilter(categories: ["location", "state"]),
        EventFilter(streams: ["contact-2"], categories: ["location"]),
        EventFilter(categories: ["contact"], types: ["ContactFavorited"]),
        EventFilter(streams: ["nobody-1"]),
      ]
      for filter in filters {
        for (first, last) in [(Int64(1), Int64?.none), (50, 120), (150, nil), (300, nil)] {
          var seen: [Int64] = []
          // Through the index even for a large category (and by a scan, for the reference).
          var reader = LogReader(path: path)
          reader.indexedReadShare = 1
          try reader.forEachEvent(matching: filter, from: first, through: last) {
            seen.append($0.sequence)
            return true
          }
          let expected = all.filter { event in
            event.sequence >= first && event.sequence <= (last ?? .max) && filter.matches(event)
          }.map(\.sequence)
          #expect(seen == expected, "\(filter) \(first)...\(String(describing: last))")
        }
      }
    }
  }

  @Test func aDamagedIndexIsIgnoredAndTheLogReadInstead() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("aDamagedIndexIsIgnoredAndTheLogReadInstead"))
      do {
        let log = try EventLog(path: path, configuration: configuration())
        try fill(log, count: 30, generator: &generator)
      }
      let expected = try scanned(path)
      let original = try Data(contentsOf: URL(fileURLWithPath: path + ".index"))
      // Every byte of the index, flipped in turn: no answer changes.
      for position in stride(from: 0, to: original.count, by: max(1, original.count / 40)) {
        var damaged = original
        damaged[position] ^= 0x5A
        try damaged.write(to: URL(fileURLWithPath: path + ".index"))
        let reports = ReportCollector()
        let log = try EventLog(
          path: path, configuration: configuration(threshold: nil, reports: reports))
        for (stream, sequences) in expected {
          #expect(try log.version(of: stream) == Int64(sequences.count), "byte \(position)")
          #expect(
            try log.events(inStream: stream).events.map(\.sequence) == sequences,
            "byte \(position)")
        }
        #expect(try readerAgrees(path, expected), "byte \(position)")
      }
    }
  }

  @Test func anIndexOfAnotherLogOrOfLinesNoLongerThereIsIgnored() throws {
    try withTemporaryDirectory { directory in
      let first = directory + "/first.jsonl"
      let second = directory + "/second.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("anIndexOfAnotherLogIsIgnored"))
      for path in [first, second] {
        let log = try EventLog(path: path, configuration: configuration())
        try fill(log, count: 20, generator: &generator)
      }
      // The first log's index beside the second log.
      try FileManager.default.removeItem(atPath: second + ".index")
      try FileManager.default.copyItem(atPath: first + ".index", toPath: second + ".index")
      let log = try EventLog(path: second, configuration: configuration(threshold: nil))
      for (stream, sequences) in try scanned(second) {
        #expect(try log.version(of: stream) == Int64(sequences.count))
      }
      // A log cut shorter than its index covers (by hand: as `repair` might).
      let bytes = try Data(contentsOf: URL(fileURLWithPath: first))
      let lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
      let kept = lines.prefix(10).map { Data($0) + Data([0x0A]) }.reduce(Data(), +)
      try kept.write(to: URL(fileURLWithPath: first))
      let cut = try EventLog(path: first, configuration: configuration(threshold: nil))
      #expect(cut.lastSequence == 10)
      for (stream, sequences) in try scanned(first) {
        #expect(try cut.version(of: stream) == Int64(sequences.count))
      }
    }
  }

  @Test func anUnfinishedSaveLeavesTheOldIndexOrNone() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("anUnfinishedSaveLeavesTheOldIndexOrNone"))
      do {
        let log = try EventLog(path: path, configuration: configuration())
        try fill(log, count: 25, generator: &generator)
      }
      let expected = try scanned(path)
      // What `kill -9` part-way through writing leaves: a cut-short file (had it been renamed).
      let index = try Data(contentsOf: URL(fileURLWithPath: path + ".index"))
      for length in [0, 10, 127, 128, index.count / 2, index.count - 1] {
        try index.prefix(length).write(to: URL(fileURLWithPath: path + ".index"))
        let log = try EventLog(path: path, configuration: configuration(threshold: nil))
        for (stream, sequences) in expected {
          #expect(try log.version(of: stream) == Int64(sequences.count), "length \(length)")
        }
      }
    }
  }

  @Test func aWriterReadsWhatAnotherAppendedAfterTheSave() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("aWriterReadsWhatAnotherAppendedAfterTheSave"))
      let saving = try EventLog(path: path, configuration: configuration(threshold: 1))
      try fill(saving, count: 10, generator: &generator)
      let other = try EventLog(path: path, configuration: configuration(threshold: nil))
      try fill(other, count: 10, generator: &generator)
      // `saving` holds the saved index; the other writer's events come after it.
      try fill(saving, count: 5, generator: &generator)
      try other.refresh()
      for (stream, sequences) in try scanned(path) {
        #expect(try saving.version(of: stream) == Int64(sequences.count))
        #expect(try other.version(of: stream) == Int64(sequences.count))
        #expect(try saving.events(inStream: stream).events.map(\.sequence) == sequences)
      }
    }
  }

  /// Ids looked up in the saved index: spread evenly (as the log and importers make them),
  /// sharing one high word, or crowded into a few high words (chosen by hand). Every id is
  /// found at its line, ids the index does not hold are not, and an evenly spread id costs a
  /// few pages, where halving would read seven or eight.
  @Test(arguments: ["spread evenly", "one high word", "a few high words"])
  func idLookupsMatchTheLogAndGuessTheirPage(spread: String) throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("idLookups " + spread))
      var ids: [EventID] = []
      for position in 0..<20_000 {
        switch spread {
        case "spread evenly": ids.append(EventID.random(using: &generator))
        case "one high word": ids.append(EventID(high: 7, low: 3 * UInt64(position)))
        default: ids.append(EventID(high: generator.next() % 5 << 61, low: generator.next()))
        }
      }
      try writeStream(of: ids, to: path)
      let bytes = try fileBytes(path)
      var offsets: [EventID: Int64] = [:]
      var lineStart = 0
      for event in try readAll(path) {
        offsets[event.id] = Int64(lineStart)
        lineStart = (bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count) + 1
      }
      #expect(offsets.count == ids.count)
      // The stream's lines read through the index, announced a window at a time.
      let stream = try LogReader(path: path).events(inStreams: ["contact-1"])["contact-1"]
      #expect(stream?.events.map(\.id) == ids)
      #expect(stream?.version == Int64(ids.count))
      let logFile = try FileDescriptor.open(path, .readOnly)
      defer { logFile.close() }
      func openIndex() throws -> LogIndexFile {
        try LogIndexFile.open(forLog: path, log: logFile, committedEnd: Int64(bytes.count)).get()
      }
      let index = try openIndex()
      #expect(index.eventCount == ids.count)
      for id in ids {
        #expect(try index.lineOffset(of: id) == offsets[id], "\(id)")
      }
      var absent = [EventID(high: 0, low: 0), EventID(high: .max, low: .max)]
      for id in ids.prefix(300) {
        absent += [
          EventID(high: id.high, low: id.low &+ 1), EventID(high: id.high &- 1, low: id.low),
        ]
      }
      for _ in 0..<300 { absent.append(EventID.random(using: &generator)) }
      for id in absent where offsets[id] == nil {
        #expect(try index.lineOffset(of: id) == nil, "\(id)")
      }
      // Pages a lookup reads, from a fresh open: 117 pages hold the ids here.
      var pagesRead: [Int] = []
      for id in ids.prefix(100) + absent.suffix(100) {
        let fresh = try openIndex()
        _ = try fresh.lineOffset(of: id)
        pagesRead.append(fresh.pagesRead)
      }
      let mean = Double(pagesRead.reduce(0, +)) / Double(pagesRead.count)
      if spread == "spread evenly" {
        #expect(mean <= 3, "\(pagesRead)")
      }
      // However the ids lie, a few guesses and then halving: within the guesses' pages of a
      // binary search's eight.
      #expect(pagesRead.max() ?? 0 <= LogIndexFile.guessLimit + 9, "\(pagesRead)")
    }
  }

  /// Stream names looked up in the saved index: six categories with decimal, hexadecimal and
  /// lettered suffixes, and twins equal as text but not as bytes. Every name is found at its
  /// place; absent names (prefixes, neighbours' neighbours, bytes past either end) get the place
  /// a search of the sorted names gives, which category reads start from.
  @Test func streamLookupsMatchTheSortedNames() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("streamLookupsMatchTheSortedNames"))
      let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")
      var names: Set<String> = ["contact-\u{E9}", "contact-e\u{301}"]
      while names.count < 6_000 {
        let category = generator.pick(["animal", "contact", "location", "observation", "state"])
        let suffix: String
        switch generator.next() % 3 {
        case 0: suffix = String(generator.next() % 200_000)
        case 1: suffix = String(generator.next() & 0xFFFF_FFFF_FFFF, radix: 16)
        default:
          suffix = String((0..<(1 + generator.next() % 20)).map { _ in generator.pick(letters) })
        }
        names.insert(category + "-" + suffix)
      }
      do {
        let log = try EventLog(path: path, configuration: configuration())
        _ = try log.importEvents(
          names.map {
            EventLog.StreamWrite(
              stream: $0, events: [proposed("ContactFavorited", #"{"id":"1"}"#)])
          })
      }
      let sorted = names.map { Array($0.utf8) }.sorted { $0.lexicographicallyPrecedes($1) }
      func place(_ name: [UInt8]) -> Int {
        sorted.firstIndex { !$0.lexicographicallyPrecedes(name) } ?? sorted.count
      }
      let size = Int64(try fileBytes(path).count)
      let logFile = try FileDescriptor.open(path, .readOnly)
      defer { logFile.close() }
      func openIndex() throws -> LogIndexFile {
        try LogIndexFile.open(forLog: path, log: logFile, committedEnd: size).get()
      }
      let index = try openIndex()
      #expect(index.streamCount == sorted.count)
      for (position, name) in sorted.enumerated() {
        let found = try name.withUnsafeBytes { try index.search($0) }
        #expect(found.position == position && found.found, "\(name)")
      }
      var absent: [[UInt8]] = [
        [], [0x00], [0xFF, 0xFF], Array("contact-".utf8), Array("zzz".utf8),
      ]
      for name in sorted.prefix(400) {
        absent += [name.dropLast(), name + [0x00], name + [0xFF], name.dropLast() + [0x7F]]
      }
      for name in absent where !names.contains(String(decoding: name, as: UTF8.self)) {
        let found = try name.withUnsafeBytes { try index.search($0) }
        #expect(found.position == place(name) && !found.found, "\(name)")
      }
    }
  }

  /// A stream's lines read through the index in runs (one read for the lines within 64 KiB of
  /// a run's first): lines of a few bytes and of 9 KB, longer than a run's read past its last
  /// line, and lines of other streams between them, come back whole and in order, from the
  /// writer and from a reader.
  @Test func aStreamsLinesReadInRunsComeBackWhole() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("aStreamsLinesReadInRunsComeBackWhole"))
      let log = try EventLog(path: path, configuration: configuration())
      for _ in 0..<300 {
        let size = generator.pick([1, 10, 3_000, 9_000, 70_000])
        let payload = #"{"id":"1","note":""# + String(repeating: "x", count: size) + #""}"#
        let stream = generator.next() % 4 == 0 ? "contact-2" : "contact-1"
        try log.append([proposed("ContactNoted", payload)], to: stream)
      }
      let expected = try readAll(path).filter { $0.stream == "contact-1" }
      let fromWriter = try log.events(inStream: "contact-1").events
      let fromReader = try LogReader(path: path).events(inStreams: ["contact-1"])["contact-1"]
      #expect(fromWriter == expected)
      #expect(fromReader?.events == expected)
    }
  }

  /// An index damaged on purpose with its checksums made to hold: ids out of order, and a
  /// stream's line offsets set far outside the log (negative, near `Int64.max`). Lookups may
  /// answer wrongly or throw, but never trap: guesses and reads stay within their arithmetic.
  @Test func anIndexDamagedWithValidChecksumsNeverTraps() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/log.jsonl"
      var generator = SplitMix64(seed: TestSeed.make("anIndexDamagedWithValidChecksumsNeverTraps"))
      let ids = (0..<5_000).map { _ in EventID.random(using: &generator) }
      try writeStream(of: ids, to: path)
      var index = try fileBytes(path + ".index")
      let layout = index.withUnsafeBytes { LogIndexFile.Header.fields(of: $0) }.layout
      // Ids: each entry's high word replaced by a random one, so the sorted order is broken.
      for position in 0..<ids.count {
        let at = layout.idsStart + position * LogIndexFile.idEntrySize
        let word = generator.next()
        withUnsafeBytes(of: word.littleEndian) { index.replaceSubrange(at..<at + 8, with: $0) }
      }
      // The stream's line offsets: alternately negative and near the top of Int64.
      for position in 0..<ids.count {
        let at = layout.offsetsStart + 8 * position
        let offset: Int64 = position.isMultiple(of: 2) ? -4_096 : Int64.max - 10
        withUnsafeBytes(of: offset.littleEndian) { index.replaceSubrange(at..<at + 8, with: $0) }
      }
      for page in 0..<layout.pageCount {
        let start = page * LogIndexFile.pageSize
        let end = min(start + LogIndexFile.pageSize, layout.pageTableStart)
        let checksum = index[start..<end].withUnsafeBytes { CRC32C.checksum($0) }
        let at = layout.pageTableStart + 4 * page
        withUnsafeBytes(of: checksum.littleEndian) { index.replaceSubrange(at..<at + 4, with: $0) }
      }
      try writeBytes(index, to: path + ".index")
      let size = Int64(try fileBytes(path).count)
      let logFile = try FileDescriptor.open(path, .readOnly)
      defer { logFile.close() }
      let opened = try LogIndexFile.open(forLog: path, log: logFile, committedEnd: size).get()
      for id in ids.prefix(500) + (0..<500).map({ _ in EventID.random(using: &generator) }) {
        _ = try? opened.lineOffset(of: id)
      }
      // Through the readers: an error, or an answer read from the log, never a trap.
      _ = try? LogReader(path: path).events(inStreams: ["contact-1"])
      let log = try EventLog(path: path, configuration: configuration(threshold: nil))
      _ = try? log.events(inStream: "contact-1")
      _ = try? log.contains(eventID: ids[0])
    }
  }
}
