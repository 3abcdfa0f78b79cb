import Foundation
import Synchronization
import Testing

/// The network between `replay` and PostgreSQL cut mid-ship (and mid-follow): a TCP proxy of
/// the test's own sits between them and, once a given number of bytes has passed, closes every
/// connection at once, then refuses new ones for a while (or for good). The shipper reconnects within `--retry-for`, or fails with exit 69 past it;
/// run again, it resumes with no gap nor duplicate.
@Suite(.serialized, .enabled(if: PostgresTestServer.isAvailable, "no initdb/pg_ctl here: skipped"))
struct PostgresNetworkCutTests {
  /// Forwards TCP connections from a port of its own on 127.0.0.1 to `target`'s.
  final class Proxy: Sendable {
    let port: Int
    private let target: Int
    private let listener: Int32
    private struct State {
      var accepting = true
      var connections: [Int32] = []
      var closed = false
      /// Bytes forwarded (both ways) since `cut(after:restoringAfter:)`, and its limit.
      var forwarded = 0
      var limit: Int?
      var restoreDelay: UInt32?
      var cuts = 0
    }
    private let state = Mutex(State())

    init(to target: Int) throws {
      self.target = target
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = Self.loopback(port: 0)
      var length = socklen_t(MemoryLayout<sockaddr_in>.size)
      let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
          bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
        }
      }
      guard descriptor >= 0, bound, listen(descriptor, 16) == 0 else {
        throw ProxyError(message: "cannot listen: errno \(errno)")
      }
      listener = descriptor
      port = Int(UInt16(bigEndian: address.sin_port))
      let thread = Thread { [self] in acceptLoop() }
      thread.start()
    }

    struct ProxyError: Error {
      var message: String
    }

    /// A URL through the proxy.
    var url: String { "postgresql://postgres@127.0.0.1:\(port)/postgres" }

    /// Closes every connection at once (both ends see it end) and, with `refusing`, closes
    /// the next ones as soon as they are accepted, until `restore()`.
    func cut(refusing: Bool) {
      let connections = state.withLock { state in
        state.accepting = !refusing
        return state.connections
      }
      for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
    }

    /// Cuts (refusing new connections) once `bytes` more have passed, either way; with
    /// `restoringAfter` (microseconds), forwards new connections again that long after.
    func cut(after bytes: Int, restoringAfter delay: UInt32?) {
      state.withLock { state in
        state.forwarded = 0
        state.limit = bytes
        state.restoreDelay = delay
      }
    }

    /// How many times the proxy cut by itself.
    var cuts: Int { state.withLock { $0.cuts } }

    /// Forwards new connections again.
    func restore() {
      state.withLock { $0.accepting = true }
    }

    /// How many connections are open through the proxy.
    var openConnections: Int { state.withLock { $0.connections.count / 2 } }

    deinit {
      state.withLock { $0.closed = true }
      shutdown(listener, Int32(SHUT_RDWR))
      close(listener)
      cut(refusing: true)
    }

    private static func loopback(port: Int) -> sockaddr_in {
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr("127.0.0.1")
      address.sin_port = UInt16(port).bigEndian
      return address
    }

    private func acceptLoop() {
      while true {
        let client = accept(listener, nil, nil)
        if client < 0 {
          if errno == EINTR { continue }
          return
        }
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.loopback(port: target)
        let connected = withUnsafePointer(to: &address) { pointer in
          pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
          }
        }
        let accepting = state.withLock { state in
          let open = state.accepting && !state.closed && connected
          if open { state.connections += [client, server] }
          return open
        }
        guard accepting else {
          close(client)
          close(server)
          continue
        }
        let thread = Thread { [self] in pump(client, server) }
        thread.start()
      }
    }

    /// Copies bytes both ways until either side ends, then closes both.
    private func pump(_ first: Int32, _ second: Int32) {
      var descriptors = [
        pollfd(fd: first, events: Int16(POLLIN), revents: 0),
        pollfd(fd: second, events: Int16(POLLIN), revents: 0),
      ]
      var buffer = [UInt8](repeating: 0, count: 65536)
      pumping: while true {
        if poll(&descriptors, 2, -1) < 0 {
          if errno == EINTR { continue }
          break
        }
        for (index, descriptor) in descriptors.enumerated() where descriptor.revents != 0 {
          let count = read(descriptor.fd, &buffer, buffer.count)
          guard count > 0 else { break pumping }
          let other = descriptors[1 - index].fd
          var written = 0
          while written < count {
            let step = buffer[written..<count].withUnsafeBytes {
              write(other, $0.baseAddress, $0.count)
            }
            guard step > 0 else { break pumping }
            written += step
          }
          let restoreDelay = state.withLock { state -> UInt32?? in
            state.forwarded += count
            guard let limit = state.limit, state.forwarded >= limit else { return nil }
            state.limit = nil
            state.cuts += 1
            return .some(state.restoreDelay)
          }
          if let restoreDelay {
            cut(refusing: true)
            if let restoreDelay {
              let thread = Thread { [self] in
                usleep(restoreDelay)
                restore()
              }
              thread.start()
            }
            break pumping
          }
        }
      }
      state.withLock { state in state.connections.removeAll { $0 == first || $0 == second } }
      shutdown(first, Int32(SHUT_RDWR))
      shutdown(second, Int32(SHUT_RDWR))
      close(first)
      close(second)
    }
  }

  /// The seqs in the table, in `global_position` order.
  private func shippedSequences(_ server: PostgresTestServer) throws -> [Int] {
    try server.psql(
      "SELECT metadata->>'seq' FROM message_store.messages ORDER BY global_position"
    ).split(separator: "\n").compactMap { Int($0) }
  }

  /// Runs `replay` in the background; its status, output and errors once it ends.
  private func start(_ arguments: [String]) -> Task<(Int32, String, String), any Error> {
    Task.detached {
      let result = try ReplayProcess.run(arguments)
      return (result.status, result.output, result.error)
    }
  }

  @Test func aShipperCutOffMidShipReconnectsOrFailsWith69AndARerunResumes() async throws {
    try await withAsyncTemporaryDirectory { directory in
      let server = try PostgresTestSetup.initializedServer()
      defer { try? server.stop(removing: true) }
      let proxy = try Proxy(to: server.port)
      let log = directory + "/big.jsonl"
      let generated = try ReplayProcess.run([
        "generate", "--events", "30000", "--seed", "cut", "--no-fsync", "--log", log,
      ])
      #expect(generated.status == 0, "\(generated.error)")
      let events = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").count

      // Cut once mid-ship: the shipper reconnects (within --retry-for) and finishes.
      proxy.cut(after: 3_000_000, restoringAfter: 700_000)
      let shipping = start([
        "ship", "--log", log, "--to", proxy.url, "--batch", "50", "--retry-for", "30",
      ])
      let (status, _, errors) = try await shipping.value
      #expect(proxy.cuts == 1)
      #expect(status == 0, "\(errors)")
      #expect(errors.contains("the connection to PostgreSQL was lost"))
      #expect(errors.contains("reconnected to '\(proxy.url)'"))
      #expect(try shippedSequences(server) == Array(1...events))

      // Cut and kept away past --retry-for: exit 69, naming the last seq in the database.
      try server.psql("TRUNCATE message_store.messages, message_store.replay_shipped")
      proxy.cut(after: 3_000_000, restoringAfter: nil)
      let giving = start([
        "ship", "--log", log, "--to", proxy.url, "--batch", "50", "--retry-for", "2",
      ])
      let (gaveUp, _, reason) = try await giving.value
      #expect(proxy.cuts == 2)
      #expect(gaveUp == 69, "\(reason)")
      #expect(reason.contains("could not be made again in"))
      #expect(reason.contains("run the command again once the server is back"))
      let partial = try shippedSequences(server)
      #expect(partial == Array(1...partial.count))
      #expect(partial.count < events)
      #expect(reason.contains("every event up to seq \(partial.count) is in the database"))

      // The network back: a rerun resumes there, no gap nor duplicate.
      proxy.restore()
      let rerun = try ReplayProcess.run(["ship", "--log", log, "--to", proxy.url])
      #expect(rerun.status == 0, "\(rerun.error)")
      #expect(try shippedSequences(server) == Array(1...events))

      // A follower through the proxy, cut while it reads: every line once, in order.
      proxy.cut(after: 3_000_000, restoringAfter: 500_000)
      let following = start([
        "log", "-f", "--json", "--log", proxy.url, "--to", String(events), "--retry-for", "30",
      ])
      let (followed, lines, followErrors) = try await following.value
      #expect(proxy.cuts == 3)
      #expect(followed == 0, "\(followErrors)")
      #expect(followErrors.contains("reconnected to '\(proxy.url)'"))
      #expect(lines == (try String(contentsOfFile: log, encoding: .utf8)))
    }
  }
}
