import Foundation
import Synchronization

/// Where commands write: standard output and standard error, or memory in tests. It is the one
/// path by which `replay` writes to them, and it checks every write.
///
/// Standard output is buffered and written out when the buffer fills, before anything is
/// written to standard error (so the two stay in order on a shared terminal), and on `flush()`.
/// Standard error is written at once.
///
///     invocation.terminal.write("appended 3 events\n")
///     invocation.terminal.writeError("warning: ...\n")
///
/// **A failed write** to standard output (a full disk, `ulimit -f`, a closed descriptor, a
/// closed pipe) is remembered as `outputFailure`: from then on standard output and standard
/// error are dropped, so that no note or summary follows an incomplete output, and long-running
/// commands (`log`, `--follow`) stop once they see `hasOutputFailed`. `finish(_:)`, which
/// `runCommandLine` calls before it returns, flushes and turns the failure into the exit status:
/// `Error: cannot write to standard output: <reason>; the output is incomplete` and
/// `ExitCode.ioError`, or, for a closed pipe, nothing and the command's own status.
///
/// A failed write to standard error cannot be reported anywhere and is ignored.
///
/// The terminal is `Sendable`: its buffers sit in a `Mutex`.
final class Terminal: Sendable {
  private enum Destination {
    /// Files, normally the process's standard output and standard error.
    case files(output: OutputDescriptor, error: OutputDescriptor)
    /// Buffers that tests read back.
    case memory
  }

  private struct State {
    /// Standard output not yet written out (`.files`) or everything written (`.memory`).
    var output: [UInt8] = []
    /// Everything written to standard error (`.memory` only).
    var error: [UInt8] = []
    /// The first failed write to standard output.
    var outputFailure: OutputFailure?
    /// Whether `finish(_:)` has reported `outputFailure`.
    var isFailureReported = false
    /// Warnings written by `warnOnce(_:)`.
    var warnings: Set<String> = []
  }

  /// How many bytes of standard output are held before they are written out.
  static let outputBufferLimit = 64 * 1024

  private let destination: Destination
  private let state = Mutex(State())

  private init(destination: Destination) {
    self.destination = destination
  }

  /// A terminal writing to the process's standard output and standard error.
  ///
  /// - Returns: A new terminal; `finish(_:)` it before the process exits.
  static func standard() -> Terminal {
    Terminal(
      destination: .files(
        output: OutputDescriptor(STDOUT_FILENO), error: OutputDescriptor(STDERR_FILENO)))
  }

  /// A terminal writing to the given files, buffered like `standard()`.
  ///
  /// - Parameters:
  ///   - output: Where standard output goes.
  ///   - error: Where standard error goes.
  /// - Returns: A new terminal; flush it before the files are closed.
  static func writing(output: FileHandle, error: FileHandle) -> Terminal {
    Terminal(destination: .files(output: OutputDescriptor(output), error: OutputDescriptor(error)))
  }

  /// A terminal keeping everything in memory, for tests; read it back with
  /// `capturedOutput` and `capturedError`.
  ///
  /// - Returns: A new, empty terminal.
  static func capturing() -> Terminal {
    Terminal(destination: .memory)
  }

  /// Writes text to standard output.
  ///
  /// - Parameter text: The text, including any line break.
  func write(_ text: String) {
    write(bytes: Array(text.utf8))
  }

  /// Writes bytes to standard output, such as JSON lines produced by `JSONWriter`; dropped once
  /// standard output has failed.
  ///
  /// - Parameter bytes: The bytes.
  func write(bytes: [UInt8]) {
    state.withLock { state in
      guard state.outputFailure == nil else { return }
      state.output.append(contentsOf: bytes)
      if case .files(let output, _) = destination, state.output.count >= Self.outputBufferLimit {
        Self.writeOut(&state, to: output)
      }
    }
  }

  /// Writes `warning: <message>` to standard error the first time this message comes: a
  /// command that reads the log several times (a replay, then a history) says it once.
  func warnOnce(_ message: String) {
    guard state.withLock({ $0.warnings.insert(message).inserted }) else { return }
    writeError("warning: \(message)\n")
  }

  /// Writes text to standard error, after flushing standard output; dropped once standard
  /// output has failed (the failure is what `finish(_:)` reports).
  ///
  /// - Parameter text: The text, including any line break.
  func writeError(_ text: String) {
    state.withLock { state in
      switch destination {
      case .memory:
        guard state.outputFailure == nil else { return }
        state.error.append(contentsOf: text.utf8)
      case .files(let output, let error):
        Self.writeOut(&state, to: output)
        guard state.outputFailure == nil else { return }
        try? error.writeAll(Array(text.utf8))
      }
    }
  }

  /// Writes out buffered standard output; a failure is kept in `outputFailure`.
  func flush() {
    guard case .files(let output, _) = destination else { return }
    state.withLock { state in
      Self.writeOut(&state, to: output)
    }
  }

  /// The first failed write to standard output, if any.
  var outputFailure: OutputFailure? {
    state.withLock { $0.outputFailure }
  }

  /// Whether a write to standard output has failed: what is still to come would be lost, so a
  /// command producing output in a loop stops.
  var hasOutputFailed: Bool { outputFailure != nil }

  /// Flushes standard output and decides the status to exit with: `status` when every write
  /// succeeded or the reader of a pipe closed it (quietly); otherwise it writes
  /// `Error: cannot write to standard output: <reason>; the output is incomplete` to standard
  /// error (once, however often it is called) and returns `ExitCode.ioError`.
  ///
  /// - Parameter status: The status the command ended with.
  /// - Returns: The status to exit with.
  func finish(_ status: ExitCode) -> ExitCode {
    flush()
    return state.withLock { state in
      guard let failure = state.outputFailure, !failure.isClosedPipe else { return status }
      if !state.isFailureReported {
        state.isFailureReported = true
        let text = "Error: \(failure.message)\n"
        switch destination {
        case .memory: state.error.append(contentsOf: text.utf8)
        case .files(_, let error): try? error.writeAll(Array(text.utf8))
        }
      }
      return .ioError
    }
  }

  /// Everything written to standard output of a `capturing()` terminal.
  var capturedOutput: String {
    state.withLock { String(decoding: $0.output, as: UTF8.self) }
  }

  /// Everything written to standard error of a `capturing()` terminal.
  var capturedError: String {
    state.withLock { String(decoding: $0.error, as: UTF8.self) }
  }

  /// Standard output as a `TextOutputStream`, for `print(_:to:)`.
  var standardOutput: Stream { Stream(terminal: self, isError: false) }

  /// Standard error as a `TextOutputStream`, for `print(_:to:)`.
  var standardError: Stream { Stream(terminal: self, isError: true) }

  /// One of a terminal's two streams, as a `TextOutputStream`.
  struct Stream: TextOutputStream, Sendable {
    fileprivate let terminal: Terminal
    fileprivate let isError: Bool

    /// Writes text to the stream.
    ///
    /// - Parameter string: The text.
    mutating func write(_ string: String) {
      if isError {
        terminal.writeError(string)
      } else {
        terminal.write(string)
      }
    }
  }

  /// Writes out and empties the buffer of standard output, keeping the first failure; after a
  /// failure the buffer is dropped, since the rest of the output cannot follow what was lost.
  private static func writeOut(_ state: inout State, to output: OutputDescriptor) {
    guard !state.output.isEmpty else { return }
    defer { state.output.removeAll(keepingCapacity: state.outputFailure == nil) }
    guard state.outputFailure == nil else { return }
    do {
      try output.writeAll(state.output)
    } catch {
      state.outputFailure = error
    }
  }
}
