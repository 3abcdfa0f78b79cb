import Dispatch
import Engine
import Foundation

/// What ends a `--follow` besides its own limits: Ctrl-C (SIGINT, or SIGTERM), and standard
/// output's reader going away (`replay log -f | head -3`), noticed at once even when no event
/// comes to be written. Either stops the follower, and the command ends normally.
final class FollowInterruption {
  private let sources: [any DispatchSourceSignal]
  private let watcher: Thread?

  init(stopping follower: any EventFollowing) {
    // A write to a closed pipe then fails (and is ignored) instead of killing the process.
    signal(SIGPIPE, SIG_IGN)
    var sources: [any DispatchSourceSignal] = []
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler { follower.stop() }
      source.resume()
      sources.append(source)
    }
    self.sources = sources
    // A pipe's write end reports POLLERR once its reader has closed it; a terminal or a file
    // never does, and the thread just waits with the process.
    var status = stat()
    if fstat(STDOUT_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFIFO {
      let thread = Thread {
        var descriptor = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
        while poll(&descriptor, 1, -1) < 0, errno == EINTR {}
        follower.stop()
      }
      thread.start()
      watcher = thread
    } else {
      watcher = nil
    }
  }

  /// Restores the signals' default handling.
  func cancel() {
    for source in sources { source.cancel() }
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }
}
