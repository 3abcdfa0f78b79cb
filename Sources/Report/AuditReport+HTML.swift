import Engine
import Events
import Foundation
import Projections

extension AuditReport {
  /// The report as one self-contained HTML page: inline CSS and SVG, a few lines of script that
  /// only add a filter, no font, image, style or script fetched from anywhere.
  ///
  /// Parts carry ids and `data-` counts that checks can read (`#timeline[data-events]`,
  /// `#contacts[data-count]`, `#map[data-locations]`, …).
  ///
  /// - Note: the Content-Security-Policy allows the page's one `<style>` and one `<script>`
  ///   by the SHA-256 of their exact text (`contentSecurityPolicy`), and nothing inline
  ///   besides: no `style` attribute, no event handler attribute, no other script.
  public func html() -> String {
    var page = HTMLText()
    page.raw(
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<meta http-equiv=\"Content-Security-Policy\" content=\""
        + Self.contentSecurityPolicy(script: Self.script, styleSheet: Self.styleSheet) + "\">")
    page.raw(
      "<title>replay report: " + HTMLText.isolatedPlainText(logTitle)
        + " at seq \(pointSequence)</title>")
    page.raw("<style>" + Self.styleSheet + "</style></head><body>\n")
    header(&page)
    page.raw("<main>\n")
    integritySection(&page)
    timelineSection(&page)
    changesSection(&page)
    // Every location with its nearest neighbours, by name: for the screen and the map.
    let locations = models.locations.neighborhood().listing()
    screensSection(&page, locations: locations)
    mapSection(&page, locations: locations)
    page.raw("</main>\n<footer><p>Written by <code>replay report</code> from ")
    page.isolated(integrity.database?.name ?? logPath)
    page.raw(
      (integrity.database == nil ? " and its sidecars" : "")
        + " only. Everything on this page is in this one file: it fetches nothing."
        + "</p></footer>\n<script>" + Self.script + "</script>\n</body></html>\n")
    return page.html
  }

  /// The page's Content-Security-Policy: nothing loaded from anywhere, images only from
  /// `data:`, and the one inline style sheet and script allowed by their hashes
  /// (`'sha256-<base64>'` of their exact UTF-8 text between the tags), never `'unsafe-inline'`.
  static func contentSecurityPolicy(script: String, styleSheet: String) -> String {
    "default-src 'none'; style-src \(hashSource(styleSheet)); script-src \(hashSource(script)); "
      + "img-src data:"
  }

  /// A CSP hash source for an inline element's text: `'sha256-<base64 of its SHA-256>'`.
  static func hashSource(_ text: String) -> String {
    "'sha256-" + Data(SHA256.hash(Array(text.utf8))).base64EncodedString() + "'"
  }

  /// The log's name in the title and the header: the file's name, or the database's.
  private var logTitle: String {
    integrity.database == nil ? Self.fileName(logPath) : logPath
  }

  /// The last path component.
  static func fileName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }

  private func header(_ page: inout HTMLText) {
    page.raw("<header><h1>Audit report ")
    page.userElement("span", "class=\"log\"", logTitle)
    page.raw("</h1><p class=\"point\">")
    var point = "Read models at "
    switch request.point {
    case .end: point += "the end of the log, seq \(pointSequence)"
    case .sequence: point += "seq \(pointSequence)"
    case .instant(let instant): point += "\(instant) (through seq \(pointSequence))"
    }
    if let pointTime { point += ", the event of \(pointTime)" }
    page.text(point + ".")
    page.raw(" Window: ")
    page.text(windowDescription)
    page.raw(
      ".</p><nav><a href=\"#integrity\">Integrity</a> <a href=\"#timeline\">Timeline</a> "
        + "<a href=\"#changes\">What changed</a> <a href=\"#screens\">Screens</a> "
        + "<a href=\"#map\">Map</a></nav></header>\n")
  }

  /// The window in words.
  var windowDescription: String {
    guard let sequences = timeline.sequences, let times = timeline.times else {
      return "no events (\(request.from.map { "from \($0)" } ?? "from the start")"
        + "\(request.to.map { " to \($0)" } ?? " to the report's point"))"
    }
    return
      "\(HTMLText.count(timeline.eventCount)) events, seq \(sequences.lowerBound)–"
      + "\(sequences.upperBound), \(times.lowerBound) – \(times.upperBound)"
  }

  private func integritySection(_ page: inout HTMLText) {
    let problems =
      !integrity.quarantined.isEmpty || !integrity.warnings.isEmpty
      || integrity.verification?.isValid == false
    page.raw(
      "<section id=\"integrity\" data-problems=\"\(problems ? 1 : 0)\"><h2>Integrity</h2>"
        + "<dl class=\"facts\">")
    page.element("dt", "", "Lines checked")
    page.element(
      "dd", "",
      "\(HTMLText.count(integrity.linesChecked)) lines read through seq "
        + "\(integrity.lastSequenceRead): every checksum, seq and envelope checked")
    page.element("dt", "", "Digest at the point")
    if let digest = integrity.digest {
      page.raw("<dd><code class=\"digest\">")
      page.text(digest.description)
      page.raw("</code> (\(HTMLText.count(Int(digest.byteCount))) bytes; ")
      page.raw("check it later with <code>replay verify --digest</code>)</dd>")
    } else {
      page.element("dd", "", "none: no event at the point")
    }
    if let head = integrity.treeHead {
      page.element("dt", "", "Tree head at the point")
      page.raw("<dd><code class=\"digest\">")
      page.text("\(head.size) \(SHA256.hex(head.root))")
      page.raw("</code> (size and RFC 9162 root; sign it with ")
      page.raw("<code>replay head --at \(head.size) --sign</code>)</dd>")
    }
    if let check = integrity.noteCheck {
      page.element("dt", "", "Signed note")
      page.raw(check.problem == nil ? "<dd>" : "<dd class=\"bad\">")
      page.text("size \(check.head.size), root ")
      page.raw("<code class=\"digest\">")
      page.text(SHA256.hex(check.head.root))
      page.raw("</code>")
      page.text(", signed by \(check.signedBy): ")
      page.text(
        check.problem.map { "does not verify: " + $0 }
          ?? "verifies: the log's first \(check.head.size) events have this root, and the log "
          + "(\(check.logSize) events) extends it")
      page.raw("</dd>")
    }
    if let database = integrity.database {
      Self.fact(
        &page, "Source",
        "\(database.name), \(HTMLText.count(Int(database.rowCount))) rows (no file: no log "
          + "size, no quarantine)")
      Self.fact(&page, "Checkpoints", database.checkpoints)
    } else {
      fileFacts(&page)
    }
    page.element("dt", "", "Warnings")
    if integrity.warnings.isEmpty {
      page.element("dd", "", "none")
    } else {
      page.raw("<dd class=\"bad\"><ul>")
      for warning in integrity.warnings { page.element("li", "", warning) }
      page.raw("</ul></dd>")
    }
    page.element("dt", "", "replay verify")
    if let verification = integrity.verification {
      if verification.isValid {
        page.element(
          "dd", "class=\"ok\"",
          "ok: \(HTMLText.count(verification.eventCount)) events, "
            + "\(HTMLText.count(verification.streamCount)) streams, last seq "
            + "\(verification.lastSequence), \(verification.alsoChecked)")
      } else {
        page.raw("<dd class=\"bad\">\(verification.problems.count) problems<ul>")
        for problem in verification.problems.prefix(request.limits.busiest) {
          page.element("li", "", problem)
        }
        page.raw("</ul></dd>")
      }
    } else {
      page.raw(
        "<dd>not run for this page (<code>replay report --verify</code> adds it; "
          + "<code>replay verify</code> gives it alone)</dd>")
    }
    page.raw("</dl></section>\n")
  }

  /// The facts only a log file has: its size, its checkpoint folder and its quarantine.
  private func fileFacts(_ page: inout HTMLText) {
    Self.fact(&page, "Log size", "\(HTMLText.count(Int(integrity.byteCount))) bytes")
    Self.fact(&page, "Checkpoints", "\(integrity.checkpointCount) beside the log")
    page.element("dt", "", "Quarantined bytes")
    if integrity.quarantined.isEmpty {
      page.element("dd", "", "none")
    } else {
      page.raw("<dd class=\"bad\"><ul>")
      for entry in integrity.quarantined {
        page.raw("<li>")
        page.isolated(entry.path)
        page.text(" (\(HTMLText.count(Int(entry.byteCount))) bytes)")
        page.raw("</li>")
      }
      page.raw("</ul></dd>")
    }
  }

  /// One fact of a `<dl>`: its term and its plain-text detail.
  private static func fact(_ page: inout HTMLText, _ term: String, _ detail: String) {
    page.element("dt", "", term)
    page.element("dd", "", detail)
  }

  /// The domains' names and colours (Okabe–Ito, distinguishable with colour-blindness), other
  /// streams last.
  static let domainStyles: [(name: String, color: String)] = [
    ("contacts", "#0072B2"), ("states", "#E69F00"), ("observations", "#009E73"),
    ("animals", "#CC79A7"), ("locations", "#56B4E9"), ("other streams", "#777777"),
  ]

  private func timelineSection(_ page: inout HTMLText) {
    page.raw(
      "<section id=\"timeline\" data-events=\"\(timeline.eventCount)\" "
        + "data-actors=\"\(timeline.actorCount)\" data-streams=\"\(timeline.streamCount)\">"
        + "<h2>Timeline</h2><p>")
    page.text(windowDescription + ", by \(timeline.actorCount) actors, on ")
    page.text("\(HTMLText.count(timeline.streamCount)) streams.")
    page.raw("</p>")
    timelineChart(&page)
    page.raw("<div class=\"tables\">")
    countTable(
      &page, title: "Types", rows: timeline.types, total: timeline.types.count, id: "types")
    countTable(
      &page, title: "Actors", rows: timeline.actors, total: timeline.actorCount, id: "actors")
    countTable(
      &page, title: "Busiest entities", rows: timeline.busiest, total: timeline.streamCount,
      id: "busiest")
    page.raw("</div></section>\n")
  }

  private func timelineChart(_ page: inout HTMLText) {
    guard !timeline.buckets.isEmpty else {
      page.raw("<p class=\"note\">No events in the window.</p>")
      return
    }
    let width = 960.0
    let height = 220.0
    let top = 10.0
    let bottom = 30.0
    let left = 50.0
    let tallest = max(1, timeline.buckets.map(\.total).max() ?? 1)
    let columnWidth = (width - left) / Double(timeline.buckets.count)
    let scale = (height - top - bottom) / Double(tallest)
    page.raw(
      "<figure><div class=\"scroll\"><svg class=\"chart\" viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" "
        + "aria-labelledby=\"timeline-title\"><title id=\"timeline-title\">")
    page.text("Events over time by domain, \(timeline.buckets.count) columns")
    page.raw("</title>")
    page.raw(
      "<line x1=\"\(Int(left))\" y1=\"\(HTMLText.number(height - bottom))\" x2=\"\(Int(width))\" "
        + "y2=\"\(HTMLText.number(height - bottom))\" class=\"axis\"/>")
    page.raw(
      "<text x=\"\(Int(left) - 6)\" y=\"\(Int(top) + 10)\" class=\"label\" text-anchor=\"end\">"
        + "\(HTMLText.count(tallest))</text><text x=\"\(Int(left) - 6)\" "
        + "y=\"\(Int(height - bottom))\" class=\"label\" text-anchor=\"end\">0</text>")
    for (column, bucket) in timeline.buckets.enumerated() {
      let x = left + Double(column) * columnWidth
      var y = height - bottom
      page.raw("<g class=\"bar\"><title>")
      var summary = "\(bucket.start) – \(bucket.end): \(HTMLText.count(bucket.total)) events"
      for (domain, count) in bucket.counts.enumerated() where count > 0 {
        summary += "; \(HTMLText.count(count)) \(Self.domainStyles[domain].name)"
      }
      page.text(summary)
      page.raw("</title>")
      for (domain, count) in bucket.counts.enumerated() where count > 0 {
        let barHeight = Double(count) * scale
        y -= barHeight
        page.raw(
          "<rect x=\"\(HTMLText.number(x + 0.5))\" y=\"\(HTMLText.number(y))\" "
            + "width=\"\(HTMLText.number(max(1, columnWidth - 1)))\" "
            + "height=\"\(HTMLText.number(max(2, barHeight)))\" "
            + "fill=\"\(Self.domainStyles[domain].color)\"/>")
      }
      page.raw("</g>")
    }
    if let first = timeline.buckets.first, let last = timeline.buckets.last {
      page.raw("<text x=\"\(Int(left))\" y=\"\(Int(height) - 8)\" class=\"label\">")
      page.text(first.start.description)
      page.raw(
        "</text><text x=\"\(Int(width))\" y=\"\(Int(height) - 8)\" class=\"label\" "
          + "text-anchor=\"end\">")
      page.text(last.end.description)
      page.raw("</text>")
    }
    page.raw("</svg></div><figcaption class=\"legend\">")
    // Classes, not `style` attributes: the page's policy allows its one style sheet only.
    for (domain, style) in Self.domainStyles.enumerated() {
      page.raw("<span><i class=\"domain\(domain)\"></i>")
      page.text(style.name)
      page.raw("</span> ")
    }
    page.raw("</figcaption></figure>")
  }

  private func countTable(
    _ page: inout HTMLText, title: String, rows: [Timeline.Count], total: Int, id: String
  ) {
    page.raw("<div class=\"scroll\"><table id=\"\(id)\"><caption>")
    page.text(title)
    page.raw("</caption><thead><tr><th>Name</th><th class=\"n\">Events</th></tr></thead><tbody>")
    for row in rows {
      page.raw("<tr>")
      page.userElement("td", "", row.name)
      page.raw("<td class=\"n\">\(HTMLText.count(row.count))</td></tr>")
    }
    page.raw("</tbody></table>")
    if total > rows.count {
      page.element("p", "class=\"note\"", "\(HTMLText.count(total - rows.count)) more not shown")
    }
    page.raw("</div>")
  }

  private func changesSection(_ page: inout HTMLText) {
    page.raw(
      "<section id=\"changes\" data-entities=\"\(changes.count)\"><h2>What changed</h2>"
        + "<p>The entities changed in the window, the most recently changed first, each with its "
        + "events in the window as <code>replay history</code> shows them.")
    if changesLeftOut > 0 {
      page.text(
        " \(HTMLText.count(changesLeftOut)) more changed entities are left out (the page "
          + "shows \(request.limits.changedEntities)); narrow the window with --from and --to.")
    }
    if changeEventsLeftOut > 0 {
      page.text(
        " \(HTMLText.count(changeEventsLeftOut)) older events of the shown entities are left "
          + "out (each shows its latest \(request.limits.eventsPerEntity)).")
    }
    page.raw(
      "</p><p><input id=\"filter\" type=\"search\" hidden placeholder=\"Filter: a name, an "
        + "actor, a field…\" aria-label=\"Filter the changed entities\"></p>")
    for history in changes {
      let stream = history.stream
      page.raw("<details class=\"entity\" open><summary>")
      page.userElement("strong", "", stream.name)
      page.text(
        " — \(stream.modelName), \(history.events.count) "
          + "event\(history.events.count == 1 ? "" : "s") shown")
      page.raw("</summary><ol class=\"events\">")
      for event in history.events {
        page.raw("<li><p class=\"headline\"><span class=\"seq\">seq \(event.sequence)</span> ")
        page.element("time", "", event.timestamp.description)
        page.raw(" ")
        page.userElement("span", "class=\"type\"", event.type)
        if let actor = event.metadata.actor {
          page.raw(" by ")
          page.userElement("span", "class=\"actor\"", actor)
        }
        if let reason = event.metadata.reason {
          page.raw(" — ")
          page.userElement("q", "", reason)
        }
        if let source = event.source {
          page.raw(" <span class=\"source\">(imported from ")
          page.isolated(source)
          page.raw(")</span>")
        }
        page.raw("</p><ul class=\"fields\">")
        if event.isCreation, let after = event.after {
          for field in after.fields {
            page.raw("<li>")
            page.text(field.name + ": ")
            page.isolated(ChangeText.value(field.value))
            page.raw("</li>")
          }
        } else {
          let fieldChanges = event.changes
          if event.type == ContactErased.eventType {
            page.element(
              "li", "class=\"note\"",
              "personal data erased: its key destroyed, at every point of the log")
          } else if fieldChanges.isEmpty {
            page.element("li", "class=\"note\"", "(no change)")
          }
          for change in fieldChanges {
            page.raw("<li>")
            Self.fieldChange(&page, change, model: stream.modelName)
            page.raw("</li>")
          }
        }
        page.raw("</ul></li>")
      }
      page.raw("</ol></details>\n")
    }
    page.raw("</section>\n")
  }

  /// `name: before → after` as `ChangeText.change` words it, each value isolated for
  /// bidirectional text (a list field's changed part as one).
  static func fieldChange(
    _ page: inout HTMLText, _ change: EntryDiff.FieldDifference, model: String
  ) {
    let prefix = change.name + ": "
    page.text(prefix)
    if ChangeText.listFields[model]?.contains(change.name) == true {
      page.isolated(String(ChangeText.change(change, model: model).dropFirst(prefix.count)))
      return
    }
    page.isolated(ChangeText.value(change.before))
    page.text(" → ")
    page.isolated(ChangeText.value(change.after))
  }

  /// Un-hides the filter and hides the entities whose text does not contain what is typed.
  static let script = """
    (function(){var f=document.getElementById('filter');if(!f)return;f.hidden=false;\
    f.addEventListener('input',function(){var q=f.value.toLowerCase();\
    document.querySelectorAll('#changes .entity').forEach(function(e){\
    e.hidden=q!==''&&e.textContent.toLowerCase().indexOf(q)<0;});});})();
    """

  static let styleSheet = """
    :root{color-scheme:light;--ink:#1b1b1b;--muted:#4a4a4a;--line:#d0d0d0;--accent:#0b57a4}\
    *{box-sizing:border-box}body{margin:0;font:15px/1.45 system-ui,-apple-system,"Segoe UI",\
    Roboto,"Noto Sans",sans-serif;color:var(--ink);background:#fff}\
    header,main,footer{max-width:1200px;margin:0 auto;padding:0 16px}\
    header{padding-top:16px;border-bottom:1px solid var(--line)}h1{font-size:1.5em;margin:.2em 0}\
    h1 .log{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8em;color:var(--muted)}\
    h2{font-size:1.25em;border-bottom:2px solid var(--ink);padding-bottom:2px;margin-top:1.6em}\
    h3{font-size:1.05em;margin:.4em 0}nav a{margin-right:1em;color:var(--accent)}\
    nav{padding:.4em 0 .8em}a{color:var(--accent)}code{font-family:ui-monospace,Menlo,Consolas,\
    monospace;font-size:.9em}code.digest{overflow-wrap:anywhere}.note{color:var(--muted);font-size:.9em}\
    .bad{color:#a00000}.ok{color:#1e6b2e}dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:4px 16px}\
    dl.facts dt{font-weight:600}dl.facts dd{margin:0}dl.facts ul{margin:0;padding-left:1.2em}\
    figure{margin:0}svg{display:block;width:100%;height:auto}svg.chart,svg.map{min-width:600px}.chart .axis,.map .frame{stroke:#555}\
    .label{font-size:11px;fill:#333}.legend{display:flex;flex-wrap:wrap;gap:4px 14px;\
    font-size:.9em}.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;\
    vertical-align:-1px}.tables{display:grid;grid-template-columns:repeat(auto-fit,minmax(260px,\
    1fr));gap:16px}.scroll{overflow-x:auto}table{border-collapse:collapse;width:100%}\
    caption{text-align:left;font-weight:600;padding:4px 0}th,td{text-align:left;padding:3px 6px;\
    border-bottom:1px solid var(--line);vertical-align:top}.n{text-align:right;\
    font-variant-numeric:tabular-nums}details.entity{border:1px solid var(--line);\
    border-radius:6px;padding:6px 10px;margin:8px 0}details.entity summary{cursor:pointer}\
    ol.events{padding-left:1.2em}.headline{margin:.4em 0 .1em}.seq{font-variant-numeric:\
    tabular-nums;color:var(--muted)}.type{font-weight:600}ul.fields{margin:0;padding-left:1.2em;\
    font-size:.93em}input[type=search]{font:inherit;padding:6px 8px;width:min(100%,420px);\
    border:1px solid #767676;border-radius:4px}\
    .screens{display:grid;grid-template-columns:repeat(auto-fit,minmax(300px,1fr));gap:16px}\
    .screen{border:1px solid var(--line);border-radius:14px;padding:10px 12px;max-height:640px;\
    overflow-y:auto}.screen h3{position:sticky;top:-10px;background:#fff;padding:4px 0}\
    .screen h4{margin:.8em 0 .3em;font-size:.95em;color:var(--muted)}.screen ul{list-style:none;\
    margin:0;padding:0}.screen li{padding:5px 0;border-bottom:1px solid #eee;display:flex;\
    gap:8px;align-items:flex-start}.screen li>div{min-width:0}.sub{color:var(--muted);\
    font-size:.88em;overflow-wrap:anywhere}.star{color:#8a6100}.icon{flex:none;width:28px;\
    height:28px}.pic{flex:none;width:44px;height:44px;border-radius:6px;background:#e8e8e8;\
    display:flex;align-items:center;justify-content:center;font-size:10px;color:#333;\
    text-align:center}.zips{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.85em}\
    .map .grat{stroke:#c8d3dc;stroke-width:.6}.map .land{fill:#e9e4d4;stroke:#bdb59c;\
    stroke-width:.5}.map .link{stroke:#b4520a;stroke-width:.8;\
    opacity:.75}.map .pt{fill:#0b3d91}.map{background:#f4f8fb}\
    footer{border-top:1px solid var(--line);margin-top:2em;padding-bottom:2em}\
    @media (max-width:500px){body{font-size:14px}dl.facts{grid-template-columns:1fr}\
    dl.facts dd{margin-bottom:6px}.screen{max-height:none}}
    """
    + domainStyles.enumerated().map {
      ".legend i.domain\($0.offset){background:\($0.element.color)}"
    }
    .joined()
}
