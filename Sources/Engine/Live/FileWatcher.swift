#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// Waits for a file to change, woken by the operating system: inotify on Linux, a kqueue
/// `EVFILT_VNODE` filter on Darwin. Elsewhere it wakes every 200 ms and lets the caller look.
///
/// `wake()` (from any thread) ends a wait at once: that is how a follower is stopped.
final class FileWatcher: Sendable {
  /// Why a wait ended.
  enum Wake: Equatable {
    /// The file may have changed (written, its attributes changed, or it was moved or
    /// deleted: the caller checks which).
    case changed
    /// `wake()` was called.
    case woken
  }

  private let path: String
  /// The inotify instance or kqueue, or -1 where there is neither.
  private let events: Int32
  /// The file's descriptor a kqueue watches (-1 elsewhere).
  private let watched: Int32
  /// A pipe whose read end is watched beside the file: a byte written ends the wait.
  private let wakeRead: Int32
  private let wakeWrite: Int32

  /// Starts watching `path` (which must exist).
  /// - Throws: `EngineError.io` when the watch cannot be set up.
  init(path: String) throws(EngineError) {
    self.path = path
    var ends: [Int32] = [0, 0]
    guard pipe(&ends) == 0 else { throw .io(path: path, operation: "pipe", code: errno) }
    wakeRead = ends[0]
    wakeWrite = ends[1]
    _ = fcntl(wakeRead, F_SETFL, O_NONBLOCK)
    _ = fcntl(wakeWrite, F_SETFL, O_NONBLOCK)
    do throws(EngineError) {
      (events, watched) = try Self.startWatching(path)
    } catch {
      close(ends[0])
      close(ends[1])
      throw error
    }
  }

  deinit {
    if events >= 0 { close(events) }
    if watched >= 0 { close(watched) }
    close(wakeRead)
    close(wakeWrite)
  }

  #if os(Linux)
    private static func startWatching(_ path: String) throws(EngineError) -> (Int32, Int32) {
      let instance = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
      guard instance >= 0 else { throw .io(path: path, operation: "inotify_init1", code: errno) }
      // Writes and truncations (IN_MODIFY), and what replacing or deleting the file does to it
      // (IN_ATTRIB for the link count, IN_MOVE_SELF, IN_DELETE_SELF).
      let mask = UInt32(IN_MODIFY | IN_ATTRIB | IN_MOVE_SELF | IN_DELETE_SELF)
      guard inotify_add_watch(instance, path, mask) >= 0 else {
        let code = errno
        close(instance)
        throw .io(path: path, operation: "inotify_add_watch", code: code)
      }
      return (instance, -1)
    }
  #elseif canImport(Darwin)
    private static func startWatching(_ path: String) throws(EngineError) -> (Int32, Int32) {
      let queue = kqueue()
      guard queue >= 0 else { throw .io(path: path, operation: "kqueue", code: errno) }
      let file = open(path, O_EVTONLY | O_CLOEXEC)
      guard file >= 0 else {
        let code = errno
        close(queue)
        throw .io(path: path, operation: "open", code: code)
      }
      var change = kevent(
        ident: UInt(file), filter: Int16(EVFILT_VNODE), flags: UInt16(EV_ADD | EV_CLEAR),
        fflags: UInt32(NOTE_WRITE | NOTE_EXTEND | NOTE_ATTRIB | NOTE_RENAME | NOTE_DELETE),
        data: 0, udata: nil)
      guard kevent(queue, &change, 1, nil, 0, nil) >= 0 else {
        let code = errno
        close(file)
        close(queue)
        throw .io(path: path, operation: "kevent", code: code)
      }
      return (queue, file)
    }
  #else
    private static func startWatching(_ path: String) throws(EngineError) -> (Int32, Int32) {
      (-1, -1)
    }
  #endif

  /// Blocks until the file may have changed or `wake()` is called.
  func wait() -> Wake {
    var descriptors = [
      pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
      pollfd(fd: events, events: Int16(POLLIN), revents: 0),
    ]
    // Without an OS watch, look again every 200 ms.
    let count = events >= 0 ? 2 : 1
    let timeout: Int32 = events >= 0 ? -1 : 200
    while true {
      let ready = poll(&descriptors, nfds_t(count), timeout)
      if ready < 0, errno == EINTR { continue }
      if descriptors[0].revents != 0 {
        drain(wakeRead)
        return .woken
      }
      if count == 2, descriptors[1].revents != 0 { drainEvents() }
      return .changed
    }
  }

  /// Ends the current or next `wait()`.
  func wake() {
    var byte: UInt8 = 1
    _ = write(wakeWrite, &byte, 1)
  }

  private func drainEvents() {
    #if canImport(Darwin)
      var event = kevent()
      var zero = timespec(tv_sec: 0, tv_nsec: 0)
      while kevent(events, nil, 0, &event, 1, &zero) > 0 {}
    #else
      drain(events)
    #endif
  }

  private func drain(_ descriptor: Int32) {
    var buffer = [UInt8](repeating: 0, count: 4096)
    while buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
  }
}
