import Foundation
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1 for the import tests, on POSIX sockets: it binds port
/// 0, and on a background thread answers each request with the next scripted response (the
/// last one repeats), then closes the connection.
final class ImportTestServer: Sendable {
  struct Response: Sendable {
    var status: Int
    var reason: String
    var body: String
    var contentType = "application/json"
  }

  /// The port the server listens on.
  let port: UInt16
  private let listener: Int32
  private let state: Mutex<(responses: [Response], paths: [String], isStopped: Bool)>

  /// Starts serving `responses` in order.
  init(_ responses: [Response]) throws {
    precondition(!responses.isEmpty, "the server needs something to answer")
    listener = try Self.listeningSocket()
    port = try Self.port(of: listener)
    state = Mutex((responses, [], false))
    Thread.detachNewThread { [self] in serve() }
  }

  /// `http://127.0.0.1:<port><path>`.
  func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

  /// The paths requested so far, in order.
  var requestedPaths: [String] { state.withLock { $0.paths } }

  /// Stops listening; the serving thread ends. Call it once the test is done (the thread
  /// keeps the server alive until then).
  func stop() {
    let wasStopped = state.withLock { state in
      defer { state.isStopped = true }
      return state.isStopped
    }
    guard !wasStopped else { return }
    // shutdown wakes a blocked accept(2); close alone would not on Linux.
    _ = shutdown(listener, Int32(SHUT_RDWR))
    _ = close(listener)
  }

  /// A port nothing listens on: bound, then closed again.
  static func closedPort() throws -> UInt16 {
    let socket = try listeningSocket(listen: false)
    defer { _ = close(socket) }
    return try port(of: socket)
  }

  private func serve() {
    while true {
      let client = accept(listener, nil, nil)
      if client < 0 {
        if errno == EINTR { continue }
        return
      }
      answer(client)
      _ = close(client)
    }
  }

  private func answer(_ client: Int32) {
    var request: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    let end = Array("\r\n\r\n".utf8)
    while request.count < 65536, !containsSequence(request, end) {
      let count = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
      if count <= 0 { break }
      request += buffer[0..<count]
    }
    let requestLine = String(decoding: request.prefix { $0 != 0x0D }, as: UTF8.self)
    let path = requestLine.split(separator: " ").dropFirst().first.map(String.init) ?? ""
    let response = state.withLock { state -> Response in
      state.paths.append(path)
      return state.responses.count > 1 ? state.responses.removeFirst() : state.responses[0]
    }
    let body = Array(response.body.utf8)
    let head =
      "HTTP/1.1 \(response.status) \(response.reason)\r\nContent-Type: \(response.contentType)\r\n"
      + "Content-Length: \(body.count)\r\nConnection: close\r\n\r\n"
    let bytes = Array(head.utf8) + body
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
      if count <= 0 { return }
      sent += count
    }
  }

  private func containsSequence(_ bytes: [UInt8], _ needle: [UInt8]) -> Bool {
    guard bytes.count >= needle.count else { return false }
    for start in 0...(bytes.count - needle.count)
    where bytes[start..<(start + needle.count)].elementsEqual(needle) {
      return true
    }
    return false
  }

  private struct SocketError: Error, CustomStringConvertible {
    var call: String
    var code: Int32
    var description: String { "\(call) failed: \(String(cString: strerror(code)))" }
  }

  private static func listeningSocket(listen shouldListen: Bool = true) throws -> Int32 {
    #if canImport(Glibc) || canImport(Musl)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
    var reuse: Int32 = 1
    _ = setsockopt(
      descriptor, SOL_SOCKET, SO_REUSEADDR, &reuse, socklen_t(MemoryLayout<Int32>.size))
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
      }
    }
    guard bound == 0 else {
      let code = errno
      _ = close(descriptor)
      throw SocketError(call: "bind", code: code)
    }
    if shouldListen, listen(descriptor, 16) != 0 {
      let code = errno
      _ = close(descriptor)
      throw SocketError(call: "listen", code: code)
    }
    return descriptor
  }

  private static func port(of descriptor: Int32) throws -> UInt16 {
    var address = sockaddr_in()
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let result = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    guard result == 0 else { throw SocketError(call: "getsockname", code: errno) }
    return UInt16(bigEndian: address.sin_port)
  }
}
