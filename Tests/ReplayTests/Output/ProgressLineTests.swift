import Foundation
import Synchronization
import Testing

@testable import replay

/// The progress line: its text (rate and estimate), when it is drawn, and that it never
/// reaches standard error that is not a terminal.
@Suite struct ProgressLineTests {
  /// Each case: label, done, total, unit, seconds, and the text.
  static let texts: [(String, Int64, Int64, ProgressLine.Unit, Double, String)] = [
    (
      "generating", 50_000, 200_000, .events, 2,
      "generating 50000/200000 events (25%), 25000 events/s, about 6 s left"
    ),
    (
      "rebuilding", 12_500_000, 50_000_000, .bytes, 2,
      "rebuilding 12.5/50.0 MB (25%), 6.3 MB/s, about 6 s left"
    ),
    (
      "writing", 1000, 100_000, .events, 1,
      "writing 1000/100000 events (1%), 1000 events/s, about 1 min 39 s left"
    ),
    // Nothing done yet: no rate to tell.
    ("parsing", 0, 20_000, .records, 1, "parsing 0/20000 records (0%)"),
    // Done: no time left to estimate.
    ("verifying", 3_000_000, 3_000_000, .bytes, 1, "verifying 3.0/3.0 MB (100%), 3.0 MB/s"),
  ]

  @Test(arguments: texts)
  func theTextSaysHowFarTheRateAndTheTimeLeft(
    _ example: (String, Int64, Int64, ProgressLine.Unit, Double, String)
  ) {
    let (label, done, total, unit, seconds, text) = example
    #expect(
      ProgressLine.text(label, done: done, total: total, unit: unit, seconds: seconds) == text)
  }

  @Test(arguments: [(4.2, "5 s"), (59, "59 s"), (65, "1 min 5 s"), (7380, "2 h 3 min")])
  func timeLeftIsWordedByItsSize(_ seconds: Double, _ text: String) {
    #expect(ProgressLine.duration(seconds) == text)
  }

  /// A clock the test moves by hand.
  final class ManualClock: Sendable {
    let seconds = Mutex(0.0)
    func advance(_ by: Double) { seconds.withLock { $0 += by } }
    var now: @Sendable () -> Double { { [self] in seconds.withLock { $0 } } }
  }

  @Test func itWaitsBeforeShowingThenRedrawsAtMostEveryIntervalAndClears() {
    let terminal = Terminal.capturing()
    let clock = ManualClock()
    let line = ProgressLine(terminal: terminal, delay: 0.5, interval: 0.1, now: clock.now)
    line.update("generating", done: 10, total: 100, unit: .events)
    clock.advance(0.2)
    line.update("generating", done: 20, total: 100, unit: .events)
    // Quick work shows nothing, and has nothing to clear.
    #expect(terminal.capturedError == "")
    clock.advance(0.3)
    line.update("generating", done: 50, total: 100, unit: .events)
    let first = "\rgenerating 50/100 events (50%), 100 events/s, about 1 s left\u{1B}[K"
    #expect(terminal.capturedError == first)
    clock.advance(0.05)
    line.update("generating", done: 60, total: 100, unit: .events)
    #expect(terminal.capturedError == first)
    // The last update is always drawn.
    line.update("generating", done: 100, total: 100, unit: .events)
    #expect(
      terminal.capturedError.hasSuffix("\rgenerating 100/100 events (100%), 182 events/s\u{1B}[K"))
    line.finish()
    #expect(terminal.capturedError.hasSuffix("\u{1B}[K\r\u{1B}[K"))
  }

  @Test func workAtOrBelowTheThresholdShowsNothing() {
    let terminal = Terminal.capturing()
    let line = ProgressLine(terminal: terminal, threshold: 10_000, delay: 0, now: { 1 })
    line.update("parsing", done: 5000, total: 10_000, unit: .records)
    line.finish()
    #expect(terminal.capturedError == "")
  }
}
