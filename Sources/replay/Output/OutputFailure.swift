import Foundation

/// Why standard output could not be written: the system's error number from `write(2)`.
///
/// A closed pipe (`EPIPE`: the reader went away, as in `replay log | head -1`) is not an error
/// to report; any other failure (`EFBIG` past `ulimit -f`, `ENOSPC`, `EIO`, `EBADF`, ...) means
/// the output is incomplete, and `replay` says so and exits with `ExitCode.ioError` (74).
struct OutputFailure: Error, Equatable, Sendable {
  /// The `errno` value the write failed with.
  var errorNumber: Int32

  /// Whether the reader of a pipe closed it: the output is not wanted any more.
  var isClosedPipe: Bool { errorNumber == EPIPE }

  /// The system's wording of the error, such as `File too large`.
  var reason: String { String(cString: strerror(errorNumber)) }

  /// One phrase for `Error: <message>`, naming standard output and the system's reason:
  /// `cannot write to standard output: File too large; the output is incomplete`.
  var message: String {
    "cannot write to standard output: \(reason); the output is incomplete"
  }
}
