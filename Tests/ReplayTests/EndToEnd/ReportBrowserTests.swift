import Foundation
import Testing

/// A headless Chromium, if this machine has one: `$CHROMIUM`, else `chromium`,
/// `chromium-browser` or `google-chrome` on the `PATH`.
enum Chromium {
  static let path: String? = {
    if let path = ProcessInfo.processInfo.environment["CHROMIUM"], !path.isEmpty { return path }
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
    for name in ["chromium", "chromium-browser", "google-chrome"] {
      for folder in folders {
        let candidate = "\(folder)/\(name)"
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
      }
    }
    return nil
  }()

  /// Loads `file` from disk with the network cut off (every host unresolvable, a dead proxy,
  /// background networking off) and returns the DOM after its scripts ran, and the URLs of the
  /// requests the page itself started (from the browser's network log).
  static func load(_ file: String, scratch: String) throws -> (dom: String, requests: [String]) {
    guard let path else { throw CocoaError(.fileNoSuchFile) }
    let netLog = scratch + "/netlog.json"
    let process = Process()
    process.executableURL = URL(fileURLWithPath: path)
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
      "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-default-apps",
      "--proxy-server=127.0.0.1:9", "--host-resolver-rules=MAP * ~NOTFOUND",
      "--user-data-dir=\(scratch)/profile", "--log-net-log=\(netLog)", "--dump-dom",
      URL(fileURLWithPath: file).absoluteString,
    ]
    let domFile = scratch + "/dom.html"
    _ = FileManager.default.createFile(atPath: domFile, contents: nil)
    let dom = try FileHandle(forWritingTo: URL(fileURLWithPath: domFile))
    process.standardOutput = dom
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    try dom.close()
    return (
      try String(contentsOfFile: domFile, encoding: .utf8), try pageRequests(netLog: netLog)
    )
  }

  /// The URLs of requests a page started: the browser marks its own (update checks and the
  /// like) as having no origin; a page from disk has the opaque origin `null`.
  static func pageRequests(netLog: String) throws -> [String] {
    let data = try Data(contentsOf: URL(fileURLWithPath: netLog))
    guard let log = try JSONSerialization.jsonObject(with: data) as? [String: Any],
      let constants = log["constants"] as? [String: Any],
      let types = constants["logEventTypes"] as? [String: Int],
      let startJob = types["URL_REQUEST_START_JOB"],
      let events = log["events"] as? [[String: Any]]
    else { return ["(the network log could not be read)"] }
    return events.compactMap { event in
      guard event["type"] as? Int == startJob, let parameters = event["params"] as? [String: Any],
        let url = parameters["url"] as? String
      else { return nil }
      return parameters["initiator"] as? String == "not an origin" ? nil : url
    }
  }
}

/// The report as a browser shows it. Skipped where Chromium is absent; CI installs it.
@Suite(
  .enabled(
    if: Chromium.path != nil,
    "Chromium is not installed (apt-get install chromium, or set $CHROMIUM): the report is not checked in a browser"
  ))
struct ReportBrowserTests {
  /// `replay state <model> --json`'s number of entries (`{"seq", "<model>": {"<model>": […]}}`;
  /// contacts in sections).
  private func stateCount(_ model: String, log: String) throws -> Int {
    let result = try ReplayProcess.run(["state", model, "--json", "--log", log])
    let object = try JSONSerialization.jsonObject(with: Data(result.output.utf8))
    guard let state = (object as? [String: Any])?[model] as? [String: Any] else { return -1 }
    if let sections = state["sections"] as? [[String: Any]] {
      return sections.reduce(0) { $0 + (($1["contacts"] as? [Any])?.count ?? 0) }
    }
    return (state[model] as? [Any])?.count ?? -1
  }

  private func attribute(_ name: String, of id: String, in dom: String) -> String? {
    guard let start = dom.range(of: "id=\"\(id)\"") else { return nil }
    let element = dom[start.upperBound...].prefix { $0 != ">" }
    guard let value = element.range(of: name + "=\"") else { return nil }
    return String(element[value.upperBound...].prefix { $0 != "\"" })
  }

  @Test func theSampleLogsReportLoadsOfflineWithEveryPartAndItsScriptRuns() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let page = directory + "/report.html"
      let result = try ReplayProcess.run(["report", "--log", log, "--output", page])
      #expect(result.status == 0, "\(result.error)")
      let (dom, requests) = try Chromium.load(page, scratch: directory)
      #expect(requests.isEmpty, "the page asked for \(requests)")
      #expect(attribute("data-events", of: "timeline", in: dom) == "147")
      #expect(
        attribute("data-count", of: "contacts", in: dom)
          == String(try stateCount("contacts", log: log)))
      #expect(
        attribute("data-count", of: "locations", in: dom)
          == String(try stateCount("locations", log: log)))
      #expect(
        attribute("data-count", of: "animals", in: dom)
          == String(try stateCount("animals", log: log)))
      #expect(
        attribute("data-count", of: "observations", in: dom)
          == String(try stateCount("observations", log: log)))
      #expect(attribute("data-favorites", of: "contacts", in: dom) == "4")
      #expect(
        attribute("data-locations", of: "map", in: dom)
          == attribute(
            "data-count", of: "locations", in: dom))
      for name in ["Miss Piggy", "Red-tailed Hawk", "Alabama", "Giant Panda", "Alpha"] {
        #expect(dom.contains(name), "the page does not show \(name)")
      }
      // The script ran: it shows the filter it enhances the page with.
      let filter = dom.range(of: "<input id=\"filter\"").map {
        dom[$0.lowerBound...].prefix { $0 != ">" }
      }
      #expect(filter != nil && filter?.contains("hidden") == false)
    }
  }

  @Test func aGeneratedLogsReportLoadsOfflineToo() throws {
    try withTemporaryDirectory { directory in
      let log = directory + "/generated.jsonl"
      let generated = try ReplayProcess.run([
        "generate", "--seed", "report", "--events", "5000", "--chunk-size", "500", "--no-fsync",
        "--log", log,
      ])
      #expect(generated.status == 0, "\(generated.error)")
      let page = directory + "/report.html"
      let result = try ReplayProcess.run(["report", "--log", log, "--output", page])
      #expect(result.status == 0, "\(result.error)")
      let (dom, requests) = try Chromium.load(page, scratch: directory)
      #expect(requests.isEmpty, "the page asked for \(requests)")
      #expect(attribute("data-events", of: "timeline", in: dom) == "5000")
      #expect(
        attribute("data-count", of: "contacts", in: dom)
          == String(try stateCount("contacts", log: log)))
      #expect(dom.contains("<svg class=\"map\""))
    }
  }

  /// The check can fail: a page that loads an image from the web is caught.
  @Test func aPageThatFetchesSomethingIsCaught() throws {
    try withTemporaryDirectory { directory in
      let page = directory + "/bad.html"
      try #"<html><body><img src="https://example.com/x.png"></body></html>"#.write(
        toFile: page, atomically: true, encoding: .utf8)
      let (_, requests) = try Chromium.load(page, scratch: directory)
      #expect(requests == ["https://example.com/x.png"])
    }
  }
}
