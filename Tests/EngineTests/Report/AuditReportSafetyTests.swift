import Events
import Foundation
import Testing

@testable import Engine
@testable import Report

/// A log whose contact, location, actor, reason and stream name carry bidirectional controls:
/// U+202E RIGHT-TO-LEFT OVERRIDE, U+2066 LEFT-TO-RIGHT ISOLATE (never closed), U+202B.
private func bidiLog(in directory: String) throws -> String {
  let path = directory + "/events.jsonl"
  let log = try EventLog(path: path, configuration: testConfiguration())
  var event = proposed(
    "ContactAdded", #"{"id":"1","name":"Ada \u202Eecalevol","isFavorite":false}"#,
    actor: "ana\u{202E} (admin)")
  event.metadata.reason = "imported \u{2066}from the list"
  var location = proposed(
    "LocationAdded",
    #"{"id":"a","name":"\u202BAlpha","coordinate":{"latitude":25.03,"longitude":121.56}}"#,
    actor: "sam")
  location.metadata.reason = "plain"
  _ = try log.append([
    EventLog.StreamWrite(stream: "contact-1", events: [event]),
    EventLog.StreamWrite(stream: "location-a", events: [location]),
  ])
  return path
}

private func page(_ path: String) throws -> String {
  try AuditReport.build(
    replayer: Replayer(reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path)),
    request: AuditReport.Request()
  ).html()
}

/// The text of the first `<tag>…</tag>` of `html`, exactly as written.
private func elementText(_ tag: String, in html: String) throws -> String {
  let start = try #require(html.range(of: "<\(tag)>"))
  let end = try #require(html.range(of: "</\(tag)>", range: start.upperBound..<html.endIndex))
  return String(html[start.upperBound..<end.lowerBound])
}

/// The value of one directive of the page's Content-Security-Policy.
private func policyDirective(_ name: String, in html: String) throws -> String {
  let start = try #require(html.range(of: "http-equiv=\"Content-Security-Policy\" content=\""))
  let policy = html[start.upperBound...].prefix { $0 != "\"" }
  let directive = try #require(
    policy.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
      .first { $0.hasPrefix(name + " ") })
  return String(directive.dropFirst(name.count + 1))
}

/// What the report does with text and addresses it did not write: no script can run, no link
/// leaves for anything but the web, no name can turn the page's words around.
@Suite struct AuditReportSafetyTests {
  @Test(arguments: [
    ("http://www.zoo.gov.tw/Panda_Pic01.jpg", "http://www.zoo.gov.tw/Panda_Pic01.jpg"),
    ("https://example.org/a.jpg", "https://example.org/a.jpg"),
    ("  HTTPS://example.org/a.jpg \n", "HTTPS://example.org/a.jpg"),
    ("hTtP://example.org/", "hTtP://example.org/"),
  ])
  func webAddressesAreLinked(url: String, link: String) {
    #expect(AuditReport.webLink(url) == link)
  }

  @Test(arguments: [
    "javascript:alert(73)//", " JavaScript:alert(73)", "\tjavascript:alert(73)",
    "data:text/html,<script>alert(1)</script>", "vbscript:msgbox(1)", "file:///etc/passwd",
    "//example.org/a.jpg", "pictures/otter.jpg", "https", "", "\u{1}https://example.org/",
    "java\nscript:alert(1)", "https\u{200B}://example.org/",
  ])
  func anyOtherAddressIsNotLinked(url: String) {
    #expect(AuditReport.webLink(url) == nil)
  }

  @Test func thePolicyAllowsTheOneScriptAndStyleSheetByTheirHashesOnly() throws {
    try withTemporaryDirectory { directory in
      let html = try page(try bidiLog(in: directory))
      #expect(!html.contains("unsafe-inline"))
      #expect(!html.contains("unsafe-hashes"))
      // One script and one style sheet, no style or event handler attribute.
      #expect(html.components(separatedBy: "<script").count == 2)
      #expect(html.components(separatedBy: "<style").count == 2)
      #expect(!html.contains(" style="))
      #expect(!html.contains(" onclick=") && !html.contains(" onload="))
      // The hashes are the SHA-256 of the elements' exact text, as the browser computes them.
      let script = try elementText("script", in: html)
      let style = try elementText("style", in: html)
      #expect(script == AuditReport.script)
      let scriptHash = Data(SHA256.hash(Array(script.utf8))).base64EncodedString()
      let styleHash = Data(SHA256.hash(Array(style.utf8))).base64EncodedString()
      #expect(try policyDirective("script-src", in: html) == "'sha256-\(scriptHash)'")
      #expect(try policyDirective("style-src", in: html) == "'sha256-\(styleHash)'")
      #expect(try policyDirective("default-src", in: html) == "'none'")
      // The legend's colours come from the style sheet, by class.
      #expect(style.contains(".legend i.domain0{background:#0072B2}"))
      #expect(html.contains("<i class=\"domain0\"></i>"))
    }
  }

  @Test func theHashOfAKnownTextIsTheStandardOne() {
    // SHA-256("abc"), in base64 (FIPS 180-2's example).
    #expect(
      AuditReport.hashSource("abc") == "'sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0='")
  }

  @Test func bidirectionalControlsInTheLogAreShownAndCannotReorderThePage() throws {
    try withTemporaryDirectory { directory in
      let html = try page(try bidiLog(in: directory))
      // Every override, embedding and isolate of the log's text is shown, not obeyed.
      let controls: [Unicode.Scalar] = [
        "\u{202A}", "\u{202B}", "\u{202C}", "\u{202D}", "\u{202E}", "\u{2066}", "\u{2067}",
      ]
      for control in controls {
        #expect(
          !html.unicodeScalars.contains(control),
          "the page holds U+\(String(control.value, radix: 16))")
      }
      #expect(html.contains(#"Ada \u{202e}ecalevol"#))
      #expect(html.contains(#"imported \u{2066}from the list"#))
      // The only isolates are the page's own, balanced.
      let opens = html.unicodeScalars.filter { $0 == "\u{2068}" }.count
      let closes = html.unicodeScalars.filter { $0 == "\u{2069}" }.count
      #expect(opens > 0 && opens == closes)
      // Text from the log is isolated: whole elements by dir="auto", values inside the page's
      // sentences by <bdi>.
      #expect(html.contains(#"<strong class="name" dir="auto">Ada \u{202e}ecalevol</strong>"#))
      #expect(html.contains(#"<span class="actor" dir="auto">ana\u{202e} (admin)</span>"#))
      #expect(html.contains(#"<q dir="auto">imported \u{2066}from the list</q>"#))
      #expect(html.contains(#"<strong dir="auto">contact-1</strong>"#))
      #expect(html.contains(#"<td dir="auto">ana\u{202e} (admin)</td>"#))
      #expect(html.contains(#"<li>name: <bdi>Ada \u{202e}ecalevol</bdi></li>"#))
      #expect(html.contains(#"<strong class="name" dir="auto">\u{202b}Alpha</strong>"#))
      // In plain text (an SVG title or label), between U+2068 and U+2069.
      #expect(html.contains("\u{2068}\\u{202b}Alpha\u{2069} (25.03"))
    }
  }
}
