import Engine
import Foundation
import Importers
import Synchronization

/// Progress of long work on standard error, rewritten in place with `\r`, with a rate and an
/// estimate of the time left:
///
///     generating 50000/200000 events (25%), 25000 events/s, about 6 s left
///     rebuilding 12.5/50.0 MB (25%), 6.3 MB/s, about 6 s left
///
/// Only on a terminal (`forStandardError` gives `nil` otherwise, so pipes and files never see
/// it), only for work past `threshold` units, and only once the work has run `delay` seconds:
/// quick work shows nothing. Redrawn at most every `interval` seconds. `finish()` clears it;
/// call it before printing the result. The clock is injected so tests can pin the text.
final class ProgressLine: Sendable {
  /// What is counted.
  enum Unit: Sendable {
    case events, records
    /// Bytes of a log, shown in MB.
    case bytes
  }

  private struct State {
    /// The phase being drawn, and when it began (the first phase begins with the line).
    var label: String?
    var started = 0.0
    /// When the line was last drawn; `nil` while nothing is shown.
    var drawn: Double?
  }

  private let terminal: Terminal
  private let threshold: Int64
  private let now: @Sendable () -> Double
  private let delay: Double
  private let interval: Double
  private let state = Mutex(State())

  /// - Parameter now: seconds on a steady clock.
  init(
    terminal: Terminal, threshold: Int64 = 0, delay: Double = 0.5, interval: Double = 0.1,
    now: @escaping @Sendable () -> Double = ProgressLine.steadySeconds
  ) {
    self.terminal = terminal
    self.threshold = threshold
    self.delay = delay
    self.interval = interval
    self.now = now
    let start = now()
    state.withLock { $0.started = start }
  }

  /// The environment variable that sets `delay` in seconds (tests set 0 to see the line at
  /// once).
  static let delayVariable = "REPLAY_PROGRESS_DELAY"

  /// A progress line when standard error is a terminal, else `nil`.
  static func forStandardError(_ terminal: Terminal, threshold: Int64 = 0) -> ProgressLine? {
    guard isatty(2) != 0 else { return nil }
    let delay = ProcessInfo.processInfo.environment[delayVariable].flatMap(Double.init)
    return ProgressLine(
      terminal: terminal, threshold: threshold, delay: delay.map { max(0, $0) } ?? 0.5)
  }

  /// Seconds since an arbitrary start, never going back.
  @Sendable static func steadySeconds() -> Double {
    let elapsed = ContinuousClock.now - origin
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
  }
  private static let origin = ContinuousClock.now

  /// Reports `done` of `total` units of `label` (a new label starts its own rate).
  func update(_ label: String, done: Int64, total: Int64, unit: Unit) {
    guard total > threshold else { return }
    let time = now()
    let text: String? = state.withLock { state in
      if state.label != label {
        if state.label != nil { state.started = time }
        state.label = label
      }
      let elapsed = time - state.started
      guard elapsed >= delay || state.drawn != nil else { return nil }
      if let drawn = state.drawn, time - drawn < interval, done < total { return nil }
      state.drawn = time
      return Self.text(label, done: done, total: total, unit: unit, seconds: elapsed)
    }
    if let text { terminal.writeError("\r" + text + "\u{1B}[K") }
  }

  /// Import's progress handler: records while parsing and planning, events while writing.
  @Sendable func report(_ phase: ImportPhase, _ done: Int, _ total: Int) {
    update(
      phase.rawValue, done: Int64(done), total: Int64(total),
      unit: phase == .writing ? .events : .records)
  }

  /// A handler for a read of a log, in bytes, under `label`.
  func reading(_ label: String) -> ReadProgress {
    { [self] done, total in update(label, done: done, total: total, unit: .bytes) }
  }

  /// Clears the line, if one is shown.
  func finish() {
    let wasShown = state.withLock { state in
      defer { state.drawn = nil }
      return state.drawn != nil
    }
    if wasShown { terminal.writeError("\r\u{1B}[K") }
  }

  /// The line's text: `done/total unit (percent)`, then, once some is done, the rate and the
  /// time left at that rate.
  static func text(_ label: String, done: Int64, total: Int64, unit: Unit, seconds: Double)
    -> String
  {
    let percent = total > 0 ? Int(100 * Double(done) / Double(total)) : 100
    var text = "\(label) \(amount(done, unit))/\(amount(total, unit)) \(name(unit)) (\(percent)%)"
    guard done > 0, seconds > 0 else { return text }
    let rate = Double(done) / seconds
    text += ", \(rateText(rate, unit)) \(name(unit))/s"
    if done < total { text += ", about \(duration(Double(total - done) / rate)) left" }
    return text
  }

  private static func name(_ unit: Unit) -> String {
    switch unit {
    case .events: "events"
    case .records: "records"
    case .bytes: "MB"
    }
  }

  private static func amount(_ value: Int64, _ unit: Unit) -> String {
    unit == .bytes ? GenerateCommand.format(Double(value) / 1e6, decimals: 1) : String(value)
  }

  private static func rateText(_ rate: Double, _ unit: Unit) -> String {
    unit == .bytes ? GenerateCommand.format(rate / 1e6, decimals: 1) : String(Int(rate.rounded()))
  }

  /// `4 s`, `1 min 5 s`, `2 h 3 min`.
  static func duration(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded(.up))
    if whole < 60 { return "\(whole) s" }
    if whole < 3600 { return "\(whole / 60) min \(whole % 60) s" }
    return "\(whole / 3600) h \(whole % 3600 / 60) min"
  }
}
