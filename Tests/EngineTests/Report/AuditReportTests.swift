import Events
import Foundation
import Projections
import Synchronization
import Testing

@testable import Engine
@testable import Report

/// A log of a few contacts and locations, one event a minute from a fixed time, by two actors.
private func smallLog(in directory: String, contactName: String = "Ada Lovelace") throws -> String {
  let path = directory + "/events.jsonl"
  let clock = Mutex(Int64(1_790_000_000_000))
  var configuration = testConfiguration()
  configuration.clock = {
    clock.withLock { now in
      now += 60_000
      return Timestamp(millisecondsSince1970: now)
    }
  }
  let log = try EventLog(path: path, configuration: configuration)
  func append(_ stream: String, _ type: String, _ json: String, actor: String) throws {
    _ = try log.append(
      [EventLog.StreamWrite(stream: stream, events: [proposed(type, json, actor: actor)])])
  }
  try append(
    "contact-1", "ContactAdded", #"{"id":"1","name":"\#(contactName)","isFavorite":false}"#,
    actor: "ana")
  try append(
    "contact-2", "ContactAdded", #"{"id":"2","name":"Grace Hopper","isFavorite":true}"#,
    actor: "ana")
  try append("contact-1", "ContactFavorited", #"{"id":"1"}"#, actor: "sam")
  try append(
    "location-a", "LocationAdded",
    #"{"id":"a","name":"Alpha","coordinate":{"latitude":25.03,"longitude":121.56}}"#, actor: "sam")
  try append(
    "location-b", "LocationAdded",
    #"{"id":"b","name":"Bravo","coordinate":{"latitude":35.68,"longitude":139.69}}"#, actor: "sam")
  try append(
    "location-c", "LocationAdded",
    #"{"id":"c","name":"Charlie","coordinate":{"latitude":37.57,"longitude":126.98}}"#,
    actor: "sam")
  try append("contact-2", "ContactUnfavorited", #"{"id":"2"}"#, actor: "ana")
  return path
}

private func report(
  _ path: String, _ request: AuditReport.Request = AuditReport.Request()
) throws -> AuditReport {
  try AuditReport.build(
    replayer: Replayer(reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path)),
    request: request)
}

@Suite struct AuditReportTests {
  @Test func theWholeLogIsTheDefaultWindowAndItsEndTheDefaultPoint() throws {
    try withTemporaryDirectory { directory in
      let path = try smallLog(in: directory)
      let report = try report(path)
      #expect(report.pointSequence == 7)
      #expect(report.timeline.eventCount == 7)
      #expect(report.timeline.sequences == 1...7)
      #expect(report.timeline.actors.map(\.name) == ["sam", "ana"])
      #expect(report.timeline.actors.map(\.count) == [4, 3])
      #expect(report.timeline.types.first?.name == "LocationAdded")
      #expect(report.timeline.buckets.map(\.total).reduce(0, +) == 7)
      // Contacts in the first domain column, locations in the fifth.
      let perDomain = report.timeline.buckets.reduce(into: [Int](repeating: 0, count: 6)) {
        for (index, count) in $1.counts.enumerated() { $0[index] += count }
      }
      #expect(perDomain == [4, 0, 0, 0, 3, 0])
      // The most recently changed entity first.
      #expect(report.changes.map(\.stream.name).first == "contact-2")
      #expect(Set(report.changes.map(\.stream.name)).count == 5)
      #expect(report.models.contacts.count == 2)
      // The digest through the point is the one `replay digest` gives.
      #expect(report.integrity.digest == (try LogDigest.compute(LogReader(path: path))))
      #expect(report.integrity.linesChecked == 7)
    }
  }

  @Test func thePointAndTheWindowAreIndependent() throws {
    try withTemporaryDirectory { directory in
      let path = try smallLog(in: directory)
      let early = try report(path, AuditReport.Request(point: .sequence(3)))
      #expect(early.pointSequence == 3)
      #expect(early.models.locations.count == 0)
      #expect(early.timeline.eventCount == 3)
      #expect(
        early.integrity.digest == (try LogDigest.compute(LogReader(path: path), through: 3)))
      let window = try report(
        path, AuditReport.Request(point: .end, from: .sequence(4), to: .sequence(6)))
      #expect(window.timeline.sequences == 4...6)
      #expect(window.timeline.eventCount == 3)
      #expect(
        window.changes.map(\.stream.name).sorted() == ["location-a", "location-b", "location-c"])
      #expect(window.models.locations.count == 3)
      // A window by time: events at or after the first bound and at or before the second.
      let times = try readAll(path).map(\.timestamp)
      let byTime = try report(
        path, AuditReport.Request(from: .instant(times[1]), to: .instant(times[2])))
      #expect(byTime.timeline.sequences == 2...3)
      // A point at a time: the models, the digest and the default window end at its last event.
      let asOf = try report(path, AuditReport.Request(point: .instant(times[3])))
      #expect(asOf.pointSequence == 4)
      #expect(asOf.timeline.sequences == 1...4)
      #expect(asOf.integrity.digest == (try LogDigest.compute(LogReader(path: path), through: 4)))
    }
  }

  /// The digest is hashed apart from the scan, in blocks: a log longer than one block gives the
  /// digest `replay digest` gives at several points, block boundaries around them.
  @Test func theDigestOfALogLongerThanABlockIsExact() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let padding = String(repeating: "x", count: 2000)
      for chunk in 0..<12 {
        let writes = (0..<50).map { index in
          EventLog.StreamWrite(
            stream: "contact-\(chunk * 50 + index)",
            events: [
              proposed(
                "ContactAdded",
                #"{"id":"\#(chunk * 50 + index)","name":"\#(padding)","isFavorite":false}"#)
            ])
        }
        _ = try log.append(writes)
      }
      #expect(try fileBytes(path).count > PrefixHasher.blockSize)
      for point in [Int64(1), 300, 550, 600] {
        let made = try report(path, AuditReport.Request(point: .sequence(point)))
        #expect(
          made.integrity.digest == (try LogDigest.compute(LogReader(path: path), through: point)))
      }
    }
  }

  /// With checkpoints beside the log, the digest resumes from the newest one at or before the
  /// point (its saved SHA-256 state): the same digest as hashing from byte 0, before and after
  /// it, and from byte 0 again when the point is before every checkpoint.
  @Test func theDigestResumedFromACheckpointIsExact() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      let log = try EventLog(path: path, configuration: testConfiguration())
      let padding = String(repeating: "y", count: 1500)
      for index in 0..<900 {
        _ = try log.append([
          EventLog.StreamWrite(
            stream: "contact-\(index)",
            events: [
              proposed(
                "ContactAdded", #"{"id":"\#(index)","name":"\#(padding)","isFavorite":false}"#)
            ])
        ])
      }
      let store = CheckpointStore(logPath: path)
      let replayer = Replayer(reader: LogReader(path: path), checkpoints: store)
      _ = try replayer.readModels(at: .sequence(700), saveLast: true)
      #expect(store.entries().map(\.sequence) == [700])
      #expect(
        AuditReport.resumableDigest(store, point: .end).map(\.offset) ?? 0
          > Int64(PrefixHasher.blockSize))
      for point in [Int64(300), 700, 701, 900] {
        let made = try AuditReport.build(
          replayer: replayer, request: AuditReport.Request(point: .sequence(point)))
        #expect(
          made.integrity.digest == (try LogDigest.compute(LogReader(path: path), through: point)))
      }
      // Before every checkpoint there is nothing to resume from.
      #expect(AuditReport.resumableDigest(store, point: .sequence(699)) == nil)
    }
  }

  /// `verifies` runs the whole `replay verify` and shows its verdict; without it the page says
  /// it was not run.
  @Test func theVerifiersVerdictIsShownWhenAskedFor() throws {
    try withTemporaryDirectory { directory in
      let path = try smallLog(in: directory)
      let plain = try report(path)
      #expect(plain.integrity.verification == nil)
      #expect(plain.html().contains("not run for this page"))
      let verified = try report(path, AuditReport.Request(verifies: true))
      #expect(verified.integrity.verification?.isValid == true)
      #expect(verified.integrity.verification?.eventCount == 7)
      #expect(verified.html().contains("ok: 7 events, 5 streams, last seq 7"))
    }
  }

  @Test func aWindowTheWrongWayRoundIsRefused() throws {
    try withTemporaryDirectory { directory in
      let path = try smallLog(in: directory)
      #expect(throws: ReportError.self) {
        try report(path, AuditReport.Request(from: .sequence(5), to: .sequence(2)))
      }
    }
  }

  @Test func aChangeShowsItsEventsInTheWindowOnlyWithBeforeAndAfter() throws {
    try withTemporaryDirectory { directory in
      let path = try smallLog(in: directory)
      let report = try report(path, AuditReport.Request(from: .sequence(3)))
      let contact = try #require(report.changes.first { $0.stream.name == "contact-1" })
      #expect(contact.events.map(\.sequence) == [3])
      #expect(contact.events[0].changes.map(\.name) == ["isFavorite"])
      let html = report.html()
      // Each value isolated for bidirectional text.
      #expect(html.contains("<li>isFavorite: <bdi>false</bdi> → <bdi>true</bdi></li>"))
    }
  }

  @Test func textFromTheLogIsEscapedAndThePageFetchesNothing() throws {
    try withTemporaryDirectory { directory in
      let path = try smallLog(
        in: directory, contactName: #"<script>alert('x')</script> & \"Co\""#)
      let html = try report(path).html()
      #expect(!html.contains("<script>alert"))
      #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;Co&quot;"))
      // Nothing the browser would load: no src attribute, no stylesheet link, no CSS url().
      for forbidden in [
        " src=", "<link", "url(", "@import", "<img", "<iframe", "http://", "https://",
      ] {
        #expect(!html.contains(forbidden), "the page holds \(forbidden)")
      }
      // One script, inline.
      #expect(html.components(separatedBy: "<script").count == 2)
    }
  }

  @Test func theScreensAndTheMapCarryTheirCounts() throws {
    try withTemporaryDirectory { directory in
      let path = try smallLog(in: directory)
      let html = try report(path).html()
      #expect(html.contains(#"id="contacts" data-count="2" data-favorites="1" data-others="1""#))
      #expect(html.contains(#"id="locations" data-count="3""#))
      #expect(html.contains(#"id="map" data-locations="3""#))
      #expect(html.contains(#"id="timeline" data-events="7" data-actors="2" data-streams="5""#))
      // Three locations, three nearest links each (k = 3 but only two others: two each).
      #expect(html.contains(#"data-links="6""#))
      // The names in the links' titles isolated (U+2068 … U+2069), a title being plain text.
      #expect(
        html.contains("\u{2068}Alpha\u{2069} → \u{2068}Bravo\u{2069}")
          || html.contains("\u{2068}Alpha\u{2069} → \u{2068}Charlie\u{2069}"))
    }
  }

  /// The vendored outline parses whole (a bad pair would be dropped silently), and the map of
  /// locations in East Asia draws the land there and none far away.
  @Test func theMapDrawsTheLandAroundTheLocations() throws {
    #expect(AuditReport.landRings.count == 269)
    #expect(AuditReport.landRings.reduce(0) { $0 + $1.count } == 3919)
    try withTemporaryDirectory { directory in
      let html = try report(try smallLog(in: directory)).html()
      let start = try #require(html.range(of: #"<path class="land" d=""#))
      let path = html[start.upperBound...].prefix { $0 != "\"" }
      let rings = path.split(separator: "Z").count
      #expect(rings > 3 && rings < 60)
    }
  }

  @Test func whatDoesNotFitIsCountedAndSaid() throws {
    try withTemporaryDirectory { directory in
      let path = try smallLog(in: directory)
      var limits = AuditReport.Limits()
      limits.rowsPerScreen = 1
      limits.changedEntities = 2
      limits.mapPoints = 2
      limits.mapLinks = 1
      let report = try report(path, AuditReport.Request(limits: limits))
      #expect(report.changes.count == 2)
      #expect(report.changesLeftOut == 3)
      let html = report.html()
      #expect(html.contains("3 more changed entities are left out"))
      #expect(html.contains("… and 2 more locations, left out of this page"))
      #expect(html.contains("2 of 3 locations plotted"))
      #expect(html.contains(#"data-links="2""#))
    }
  }

  @Test func anEmptyLogGivesAPageWithNothingInIt() throws {
    try withTemporaryDirectory { directory in
      let path = directory + "/events.jsonl"
      #expect(FileManager.default.createFile(atPath: path, contents: nil))
      let report = try report(path)
      #expect(report.pointSequence == 0)
      #expect(report.timeline.eventCount == 0)
      #expect(report.integrity.digest == nil)
      let html = report.html()
      #expect(html.contains("No events in the window."))
      #expect(html.contains("No locations at the report"))
    }
  }

  @Test func numbersAreWrittenTheSameInEveryLocale() {
    #expect(HTMLText.count(0) == "0")
    #expect(HTMLText.count(999) == "999")
    #expect(HTMLText.count(1000) == "1,000")
    #expect(HTMLText.count(1_234_567) == "1,234,567")
    #expect(HTMLText.count(-1234) == "-1,234")
    #expect(HTMLText.number(12.345) == "12.3")
    #expect(HTMLText.number(12.0) == "12")
    #expect(HTMLText.number(.nan) == "0")
    #expect(HTMLText.escaped("a\u{1B}b\nc") == "a\\u{1b}b c")
  }
}
