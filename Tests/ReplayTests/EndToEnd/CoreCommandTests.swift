import Foundation
import Synchronization
import Testing

/// End-to-end tests of the core subcommands: they run the built binary and pin output, error
/// text and exit status, and check that a failed command leaves the log byte-for-byte alone.
@Suite struct AppendCommandTests {
  @Test func appendPrintsTheNewSeqAndJSONPrintsTheEnvelope() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let first = try ReplayProcess.run(
        [
          "append", "--log", log, "--stream", "contact-13", "--type", "ContactFavorited", "--data",
          #"{"id":"13"}"#,
          "--actor", "ana", "--reason", "met at the expo",
        ], environment: reproducible)
      #expect(first.status == 0)
      #expect(first.output == "1\n")
      #expect(first.error == "")
      let second = try ReplayProcess.run(
        [
          "append", "--log", log, "--stream", "contact-13", "--type", "ContactUnfavorited",
          "--data", #"{ "id" : "13" }"#,
          "--expected-version", "1", "--json",
        ], environment: reproducible)
      #expect(second.status == 0)
      let stored = String(decoding: fileBytes(log), as: UTF8.self).split(separator: "\n")
      #expect(stored.count == 2)
      #expect(second.output == stored[1] + "\n")
      #expect(stored[1].contains(#","data":{"id":"13"},"crc":""#))
    }
  }

  @Test func aDuplicateIDPrintsTheExistingSeqAndAppendsNothing() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let arguments = [
        "append", "--log", log, "--stream", "location-a", "--type", "LocationMoved", "--data",
        #"{"id":"a","coordinate":{"latitude":1,"longitude":2}}"#, "--id",
        "6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5",
      ]
      try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-0", "--type", "ContactFavorited", "--data",
        #"{"id":"0"}"#,
      ])
      #expect(try ReplayProcess.run(arguments).output == "2\n")
      let before = fileBytes(log)
      let again = try ReplayProcess.run(arguments)
      #expect(again.status == 0)
      #expect(again.output == "2\n")
      #expect(
        again.error
          == "note: event 6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5 is already in the log at seq 2; nothing appended\n"
      )
      #expect(fileBytes(log) == before)
      let changed = try ReplayProcess.run(
        Array(arguments.dropLast(3)) + [#"{"id":"a","coordinate":{"latitude":3,"longitude":2}}"#]
          + arguments.suffix(2))
      #expect(changed.status == 65)
      #expect(
        changed.error
          == "Error: event id 6b9fdafb-4d9b-4255-aa1a-2c52a1e597b5 is already in the log at seq 2 with different content (data {\"id\":\"a\",\"coordinate\":{\"latitude\":1,\"longitude\":2}} there, {\"id\":\"a\",\"coordinate\":{\"latitude\":3,\"longitude\":2}} here); use a new id for a new event\n"
      )
      #expect(fileBytes(log) == before)
    }
  }

  @Test func anExpectedVersionConflictExitsWith3AndWritesNothing() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
        #"{"id":"1"}"#,
      ])
      let before = fileBytes(log)
      let result = try ReplayProcess.run(
        [
          "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
          #"{"id":"1"}"#, "--expected-version", "no-stream",
        ])
      #expect(result.status == 3)
      #expect(
        result.error
          == "Error: stream 'contact-1' has version 1, but the append expected no stream; reload the stream and retry\n"
      )
      #expect(result.output == "")
      #expect(fileBytes(log) == before)
    }
  }

  @Test(arguments: [
    (
      #"{"id":"13""#, 65,
      "Error: --data is not valid JSON: expected ',' or '}' after an object member, found end of input at byte 10\n"
    ),
    ("[1,2]", 65, "Error: --data must be a JSON object, found an array\n"),
    (
      #"{"a":1,"a":2}"#, 65,
      "Error: --data is not valid JSON: expected each key once in an object, found a second 'a' at byte 7\n"
    ),
  ])
  func badDataIsRejectedAndWritesNothing(data: String, status: Int32, message: String) throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
        #"{"id":"1"}"#,
      ])
      let before = fileBytes(log)
      let result = try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
        data,
      ])
      #expect(result.status == status)
      #expect(result.error == message)
      #expect(fileBytes(log) == before)
    }
  }

  @Test func anUnknownOptionIsAUsageErrorWithASuggestion() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
        #"{"id":"1"}"#,
      ])
      let before = fileBytes(log)
      let result = try ReplayProcess.run(
        [
          "append", "--log", log, "--stream", "contact-1", "--typ", "ContactFavorited", "--data",
          #"{"id":"1"}"#,
        ])
      #expect(result.status == 64)
      #expect(
        result.error.hasPrefix(
          "Error: Unknown option '--typ'. Did you mean '--type'?\nUsage: replay append"))
      #expect(result.error.hasSuffix("  See 'replay append --help' for more information.\n"))
      #expect(fileBytes(log) == before)
    }
  }

  @Test func aMisspelledSubcommandGetsASuggestion() throws {
    let result = try ReplayProcess.run(["apend"])
    #expect(result.status == 64)
    #expect(result.error.hasPrefix("Error: Unknown subcommand 'apend'. Did you mean 'append'?\n"))
  }

  @Test func appendFileIsAllOrNothingAndListsEveryBadLine() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let events = directory + "/in.jsonl"
      try ReplayProcess.run([
        "append", "--log", log, "--stream", "contact-1", "--type", "ContactFavorited", "--data",
        #"{"id":"1"}"#,
      ])
      let before = fileBytes(log)
      try """
      {"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"}}
      {"stream":"contact-2","type":"ContactFavorited","data":[1]}
      not json
      {"stream":"contact-3","type":"ContactFavorited","data":{"id":"3"},"colour":"red"}
      {"stream":"state-Ohio","type":"ZipCodeModifed","data":{"state":"Ohio","from":"43001","to":"43002"}}
      {"stream":"contact-4","type":"ContactFavorited","data":{"id":"5"}}
      """.write(toFile: events, atomically: true, encoding: .utf8)
      let result = try ReplayProcess.run(["append", "--log", log, "--file", events])
      #expect(result.status == 65)
      #expect(
        result.error == """
          Error: 5 invalid lines in '\(events)'; nothing was appended:
            \(events):2: 'data' must be an object, found an array
            \(events):3: not valid JSON: expected a value (object, array, string, number, true, false or null), found 'n' at byte 0
            \(events):4: unknown member 'colour' (expected 'stream', 'type', 'data', 'meta', 'id', 'expectedVersion', 'schema')
            \(events):5: unknown event type 'ZipCodeModifed'; did you mean 'ZipCodeModified'?
            \(events):6: 'ContactFavorited' belongs in stream 'contact-5', not 'contact-4'; append it to 'contact-5'

          """)
      #expect(fileBytes(log) == before)
    }
  }

  @Test func appendFileWritesEveryLineAsOneBatchAndIsIdempotent() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let input = """
        {"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"},"id":"00000000-0000-4000-8000-000000000001","meta":{"actor":"ana"}}
        {"stream":"contact-1","type":"ContactUnfavorited","data":{"id":"1"},"id":"00000000-0000-4000-8000-000000000002","expectedVersion":1}

        {"stream":"state-Ohio","type":"StateAdded","data":{"state":"Ohio"},"id":"00000000-0000-4000-8000-000000000003","expectedVersion":"no-stream"}
        """
      let first = try ReplayProcess.run(["append", "--log", log, "--file", "-"], input: input)
      #expect(first.status == 0)
      #expect(first.output == "appended 3 events (seq 1...3)\n")
      let again = try ReplayProcess.run(
        ["append", "--log", log, "--file", "-", "--json"], input: input)
      #expect(again.status == 0)
      #expect(
        again.output == #"{"appended":0,"duplicates":3,"firstSeq":null,"lastSeq":null}"# + "\n")
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.output.hasPrefix("ok: 3 events, 2 streams, last seq 3, "))
    }
  }

  @Test func aPipeOrFIFOGivenByNameIsReadAsStandardInputIs() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let line = #"{"stream":"contact-1","type":"ContactFavorited","data":{"id":"1"}}"# + "\n"
      let piped = try ReplayProcess.run(
        ["append", "--log", log, "--file", "/dev/stdin"], input: line + line)
      #expect(piped.status == 0, "\(piped.error)")
      #expect(piped.output == "appended 2 events (seq 1...2)\n")
      let fifo = directory + "/events.fifo"
      #expect(mkfifo(fifo, 0o600) == 0)
      // The writer blocks in open until replay opens the FIFO for reading.
      let writer = Thread {
        if let handle = FileHandle(forWritingAtPath: fifo) {
          handle.write(Data(line.utf8))
          try? handle.close()
        }
      }
      writer.start()
      let named = try ReplayProcess.run(["append", "--log", log, "--file", fifo])
      #expect(named.status == 0, "\(named.error)")
      #expect(named.output == "appended 1 event (seq 3...3)\n")
    }
  }

  @Test func aMissingOrUnreadableInputFileExitsWith66() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let missing = try ReplayProcess.run([
        "append", "--log", log, "--file", directory + "/nope.jsonl",
      ])
      #expect(missing.status == 66)
      #expect(missing.error == "Error: no such file '\(directory)/nope.jsonl'\n")
      let folder = try ReplayProcess.run(["append", "--log", log, "--file", directory])
      #expect(folder.status == 66)
      #expect(folder.error == "Error: '\(directory)' is a directory, not a file\n")
      #expect(!FileManager.default.fileExists(atPath: log))
      let noLog = try ReplayProcess.run(["log", "--log", directory + "/missing.jsonl"])
      #expect(noLog.status == 66)
      #expect(
        noLog.error
          == "Error: no event log at '\(directory)/missing.jsonl'; pass --log <path> or set REPLAY_LOG (the shipped sample is eventlogs/sample.jsonl)\n"
      )
    }
  }

  @Test func replayLogIsTakenFromTheEnvironment() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/from-env.jsonl"
      let result = try ReplayProcess.run(
        [
          "append", "--stream", "contact-1", "--type", "ContactFavorited", "--data", #"{"id":"1"}"#,
        ],
        environment: ["REPLAY_LOG": log])
      #expect(result.status == 0)
      #expect(FileManager.default.fileExists(atPath: log))
      let defaultLog = try ReplayProcess.run(
        [
          "append", "--stream", "contact-1", "--type", "ContactFavorited", "--data", #"{"id":"1"}"#,
        ],
        directory: directory)
      #expect(defaultLog.status == 0)
      #expect(FileManager.default.fileExists(atPath: directory + "/events.jsonl"))
    }
  }
}

@Suite struct ConcurrencyTests {
  @Test func twoProcessesAppendingAtOnceLoseNothingAndNeverInterleave() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      let perProcess = 60
      let batch = (1...perProcess).map {
        #"{"stream":"location-c\#($0 % 5)","type":"LocationMoved","data":{"id":"c\#($0 % 5)","coordinate":{"latitude":\#($0),"longitude":0}}}"#
      }
      .joined(separator: "\n")
      // Each process runs many small appends (chunk size 1 means a write and an fsync per
      // event) to maximise the chances of interleaving if locking were broken.
      let group = DispatchGroup()
      let results = Mutex<[ReplayProcess.Result]>([])
      for name in ["a", "b"] {
        group.enter()
        DispatchQueue.global().async {
          for number in 1...perProcess {
            if let result = try? ReplayProcess.run(
              [
                "append", "--log", log, "--stream", "location-\(name)\(number % 5)", "--type",
                "LocationMoved", "--data",
                #"{"id":"\#(name)\#(number % 5)","coordinate":{"latitude":\#(number),"longitude":0}}"#,
              ])
            {
              results.withLock { $0.append(result) }
            }
          }
          group.leave()
        }
      }
      group.enter()
      DispatchQueue.global().async {
        if let result = try? ReplayProcess.run(
          ["append", "--log", log, "--file", "-", "--chunk-size", "1"], input: batch)
        {
          results.withLock { $0.append(result) }
        }
        group.leave()
      }
      group.wait()
      let all = results.withLock { $0 }
      #expect(all.count == 2 * perProcess + 1)
      #expect(all.allSatisfy { $0.status == 0 })
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0)
      #expect(
        verify.output.hasPrefix(
          "ok: \(3 * perProcess) events, 15 streams, last seq \(3 * perProcess), "))
    }
  }
}
