import Engine
import Events
import Foundation
import ReplayTestSupport
import Testing

/// What a library user reads lines with: `EventLineView` through the public `forEachEvent`,
/// `follow` and `EventFilter.matches`, against the package's own `EventLine` path; and the
/// compiler refusing every way of keeping a view past its closure.
@Suite struct EventLineViewTests {
  /// A log of contacts: a favourite in each of `count` streams, one with metadata.
  private func makeLog(in directory: String, count: Int = 300) throws -> String {
    let path = directory + "/events.jsonl"
    let log = try EventLog(path: path, configuration: testConfiguration())
    let writes = (1...count).map { index in
      EventLog.StreamWrite(
        stream: "contact-\(index)",
        events: [
          proposed(
            index.isMultiple(of: 2) ? "ContactFavorited" : "ContactUnfavorited",
            #"{"id":"\#(index)"}"#, actor: index == 7 ? "tester" : nil)
        ])
    }
    _ = try log.append(writes)
    return path
  }

  /// The view shows what the package's line shows, field by field, on the serial and the
  /// pipelined read.
  @Test(arguments: [false, true])
  func theViewShowsWhatTheLineHolds(pipelined: Bool) throws {
    try withTemporaryDirectory { directory in
      let path = try makeLog(in: directory)
      var reader = LogReader(path: path, readSize: 4096)
      if pipelined { reader.pipelineThreshold = 0 }
      let file = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
      let lines = file.split(separator: 0x0A, omittingEmptySubsequences: false).dropLast()
      var expected: [RecordedEvent] = []
      try reader.forEachEvent { (line: EventLine) in
        expected.append(line.recordedEvent())
        return true
      }
      var seen: [RecordedEvent] = []
      try reader.forEachEvent { (line: borrowing EventLineView) in
        let event = line.recordedEvent()
        #expect(line.sequence == event.sequence && line.version == event.version)
        #expect(line.id == event.id && line.timestamp == event.timestamp)
        #expect(line.stream == event.stream && line.type == event.type)
        #expect(line.schemaVersion == event.schemaVersion && line.batch == event.batch)
        #expect(line.data == event.data && line.metadata() == event.metadata)
        #expect(line.hasType("ContactFavorited") == (event.type == "ContactFavorited"))
        #expect(line.lineNumber == Int(event.sequence))
        #expect(line.bytes == Array(lines[line.lineNumber - 1]))
        let offset = lines[..<(lines.startIndex + line.lineNumber - 1)].reduce(0) {
          $0 + $1.count + 1
        }
        #expect(line.offset == Int64(offset))
        seen.append(event)
        return true
      }
      #expect(seen.count == 300)
      #expect(seen == expected)
      #expect(seen[6].metadata.actor == "tester")
    }
  }

  /// `from:through:` and a body that stops: the public read stops where the package's does.
  @Test func theViewReadStopsWhereAsked() throws {
    try withTemporaryDirectory { directory in
      let reader = LogReader(path: try makeLog(in: directory))
      var sequences: [Int64] = []
      let summary = try reader.forEachEvent(through: 40) { (line: borrowing EventLineView) in
        sequences.append(line.sequence)
        return line.sequence < 25
      }
      #expect(sequences == Array(1...25))
      #expect(summary.stoppedEarly)
    }
  }

  /// The filtered read and `follow` lend views too, and `EventFilter.matches` takes one.
  @Test func filteredReadsAndFollowLendViews() throws {
    try withTemporaryDirectory { directory in
      let path = try makeLog(in: directory)
      let filter = EventFilter(streams: ["contact-4", "contact-9"])
      var streams: [String] = []
      try LogReader(path: path).forEachEvent(matching: filter) {
        (line: borrowing EventLineView) in
        streams.append(line.stream)
        return true
      }
      #expect(streams == ["contact-4", "contact-9"])

      let favorites = EventFilter(types: ["ContactFavorited"])
      var matched = 0
      try LogReader(path: path).forEachEvent { (line: borrowing EventLineView) in
        if favorites.matches(line) { matched += 1 }
        return true
      }
      #expect(matched == 150)

      let follower = LogFollower(path: path, from: .beginning, filter: filter)
      var followed: [Int64] = []
      try follower.follow(through: 300) { (line: borrowing EventLineView) in
        followed.append(line.sequence)
        return true
      }
      #expect(followed == [4, 9])
    }
  }

  /// The compiler refuses every way of keeping a view past the closure that lends it; keeping
  /// what it returns compiles (the control that shows the check can pass). Compiles snippets to
  /// SIL (the ownership checks run there, not in `-typecheck`) against this build's modules.
  /// Not among them: capturing the view in an escaping closure, which crashes swiftc 6.3.1
  /// (signal 11) rather than compiling.
  @Test(arguments: [
    "var kept: EventLineView? = nil; try reader.forEachEvent { line in kept = line; return true }",
    "var kept: [EventLineView] = []; try reader.forEachEvent { line in kept.append(line); return true }",
    "try reader.forEachEvent { line in let copy = line; _ = copy; return true }",
  ])
  func aViewCannotLeaveItsClosure(escape: String) throws {
    let kept = try typecheck(escape)
    #expect(kept.status != 0, "compiled: \(escape)")
    #expect(kept.errors.contains("consum") || kept.errors.contains("Copyable"), "\(kept.errors)")
    let control = try typecheck(
      "var kept: [RecordedEvent] = []; try reader.forEachEvent { line in "
        + "kept.append(line.recordedEvent()); return true }")
    #expect(control.status == 0, "\(control.errors)")
  }

  /// Runs `swiftc -emit-sil` on `body` inside a function given `reader`, against the modules
  /// of the build these tests belong to.
  private func typecheck(_ body: String) throws -> (status: Int32, errors: String) {
    #if DEBUG
      let configuration = "debug"
    #else
      let configuration = "release"
    #endif
    let build = RepositoryFiles.root.appendingPathComponent(".build/\(configuration)").path
    let modules = build + "/Modules"
    try #require(
      FileManager.default.fileExists(atPath: modules + "/Engine.swiftmodule"),
      "no Engine module at \(modules): run the tests from the default build folder")
    return try withTemporaryDirectory { directory in
      let source = directory + "/Snippet.swift"
      let text = "import Engine\nfunc snippet(_ reader: LogReader) throws {\n  \(body)\n}\n"
      try text.write(toFile: source, atomically: true, encoding: .utf8)
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
      process.arguments = [
        "swiftc", "-emit-sil", "-o", "/dev/null", "-swift-version", "6", "-I", modules, "-Xcc",
        "-fmodule-map-file=\(build)/CCRC32C.build/module.modulemap", source,
      ]
      let errors = Pipe()
      process.standardError = errors
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      let output = errors.fileHandleForReading.readDataToEndOfFile()
      process.waitUntilExit()
      return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
  }
}
