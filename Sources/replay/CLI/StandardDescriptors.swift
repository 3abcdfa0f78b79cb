import Foundation

/// The process's standard input, output and error descriptors (0, 1 and 2).
enum StandardDescriptors {
  /// Puts `/dev/null` on each of the three that was closed when the process started: read-only,
  /// so that a closed standard input reads as empty and a write to a closed standard output or
  /// error still fails with `EBADF`, as it would have, and is reported like any other failure.
  ///
  /// Otherwise the next file `replay` opens (the log, say) would get the descriptor: output meant
  /// for the terminal would land in the log, or the log would be read as standard input.
  static func reserveClosed() {
    for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
      guard fcntl(descriptor, F_GETFD) == -1, errno == EBADF else { continue }
      let opened = open("/dev/null", O_RDONLY)
      guard opened >= 0 else { continue }
      // The lowest free descriptor is normally the closed one; move it there if not.
      if opened != descriptor {
        _ = dup2(opened, descriptor)
        close(opened)
      }
    }
  }
}
