import Foundation
import Synchronization

/// Where commands write: standard output and standard error, or memory in tests.
///
/// Standard output is buffered and written out when the buffer fills, before anything is
/// written to standard error (so the two stay in order on a shared terminal), and on `flush()`;
/// `runCommandLine` flushes before it returns. Standard error is written at once.
///
///     invocation.terminal.write("appended 3 events\n")
///     invocation.terminal.writeError("warning: ...\n")
///
/// The terminal is `Sendable`: its buffers sit in a `Mutex`.
final class Terminal: Sendable {
  private enum Destination {
    /// Files, normally the process's standard output and standard error.
    case files(output: FileHandle, error: FileHandle)
    /// Buffers that tests read back.
    case memory
  }

  private struct State {
    /// Standard output not yet written out (`.files`) or everything written (`.memory`).
    var output: [UInt8] = []
    /// Everything written to standard error (`.memory` only).
    var error: [UInt8] = []
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
  /// - Returns: A new terminal; flush it before the process exits.
  static func standard() -> Terminal {
    Terminal(destination: .files(output: .standardOutput, error: .standardError))
  }

  /// A terminal writing to the given files, buffered like `standard()`.
  ///
  /// - Parameters:
  ///   - output: Where standard output goes.
  ///   - error: Where standard error goes.
  /// - Returns: A new terminal; flush it before the files are closed.
  static func writing(output: FileHandle, error: FileHandle) -> Terminal {
    Terminal(destination: .files(output: output, error: error))
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

  /// Writes bytes to standard output, such as JSON lines produced by `JSONWriter`.
  ///
  /// - Parameter bytes: The bytes.
  func write(bytes: [UInt8]) {
    state.withLock { state in
      state.output.append(contentsOf: bytes)
      if case .files(let output, _) = destination, state.output.count >= Self.outputBufferLimit {
        Self.writeOut(&state.output, to: output)
      }
    }
  }

  /// Writes text to standard error, after flushing standard output.
  ///
  /// - Parameter text: The text, including any line break.
  func writeError(_ text: String) {
    state.withLock { state in
      switch destination {
      case .memory:
        state.error.append(contentsOf: text.utf8)
      case .files(let output, let error):
        Self.writeOut(&state.output, to: output)
        var bytes = Array(text.utf8)
        Self.writeOut(&bytes, to: error)
      }
    }
  }

  /// Writes out buffered standard output.
  func flush() {
    guard case .files(let output, _) = destination else { return }
    state.withLock { state in
      Self.writeOut(&state.output, to: output)
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

  private static func writeOut(_ bytes: inout [UInt8], to handle: FileHandle) {
    guard !bytes.isEmpty else { return }
    // A failed write (such as a closed pipe) cannot be reported anywhere useful; the exit
    // status still tells the caller whether the command succeeded.
    try? handle.write(contentsOf: Data(bytes))
    bytes.removeAll(keepingCapacity: true)
  }
}
