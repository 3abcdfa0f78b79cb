import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// A PostgreSQL server of a test's own: a cluster made with `initdb` in a temporary folder,
/// started with `pg_ctl` on a free port (its unix socket in the same folder), stopped and
/// removed by `stop()`. As root, the server runs as `nobody` (`initdb` refuses root) through
/// `setpriv`.
///
/// The cluster trusts local connections, except for two roles that must log in with a
/// password over TCP: `scram_user` (SCRAM-SHA-256) and `md5_user` (md5), both with the
/// password `secret`.
public final class PostgresTestServer: @unchecked Sendable {
  // @unchecked: `port` and `folder` never change; `isRunning` is only touched by the test
  // that owns the server, on its own task.
  public let folder: String
  public let port: Int
  private var isRunning = false

  /// The folder of PostgreSQL's programs: `$REPLAY_PG_BIN`, else Debian's
  /// `/usr/lib/postgresql/<newest>/bin`, else the folder of `pg_ctl` on the `PATH`.
  public static let binaries: String? = {
    let environment = ProcessInfo.processInfo.environment
    if let folder = environment["REPLAY_PG_BIN"], !folder.isEmpty { return folder }
    let debian = "/usr/lib/postgresql"
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: debian)) ?? []
    for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
      let folder = "\(debian)/\(version)/bin"
      if FileManager.default.isExecutableFile(atPath: folder + "/pg_ctl") { return folder }
    }
    for folder in (environment["PATH"] ?? "").split(separator: ":") {
      if FileManager.default.isExecutableFile(atPath: "\(folder)/pg_ctl"),
        FileManager.default.isExecutableFile(atPath: "\(folder)/initdb")
      {
        return String(folder)
      }
    }
    return nil
  }()

  /// Whether the tests can start a server here.
  public static var isAvailable: Bool { binaries != nil }

  /// Makes and starts a cluster.
  public init() throws {
    guard let binaries = Self.binaries else { throw ServerError("no PostgreSQL binaries") }
    // Short: a unix socket's path must fit in 107 bytes.
    folder = "/tmp/replay-pg-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    if geteuid() == 0 {
      try FileManager.default.setAttributes(
        [.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: folder)
    }
    port = try Self.freePort()
    try Self.run(
      binaries + "/initdb",
      ["-D", folder + "/data", "-U", "postgres", "-A", "trust", "--no-sync", "-E", "UTF8"])
    let hba = """
      local all all trust
      host all scram_user 127.0.0.1/32 scram-sha-256
      host all md5_user 127.0.0.1/32 md5
      host all all 127.0.0.1/32 trust

      """
    try Self.asServerUser(hba, write: folder + "/data/pg_hba.conf")
    try start()
    try psql(
      """
      SET password_encryption = 'scram-sha-256';
      CREATE ROLE scram_user LOGIN SUPERUSER PASSWORD 'secret';
      SET password_encryption = 'md5';
      CREATE ROLE md5_user LOGIN SUPERUSER PASSWORD 'secret';
      """)
  }

  deinit { try? stop(removing: true) }

  /// A URL for `user` over TCP to the database `postgres`.
  public func url(user: String = "postgres", password: String? = nil) -> String {
    let credentials = password.map { "\(user):\($0)" } ?? user
    return "postgresql://\(credentials)@127.0.0.1:\(port)/postgres"
  }

  /// Starts the server (again).
  public func start() throws {
    guard let binaries = Self.binaries else { return }
    try Self.run(
      binaries + "/pg_ctl",
      [
        "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "30", "-o",
        "-p \(port) -k \(folder) -c listen_addresses=127.0.0.1 -c fsync=off"
          + " -c full_page_writes=off -c max_connections=40",
        "start",
      ])
    isRunning = true
  }

  /// Stops the server: `fast` ends every session (as a restart or a failover does).
  public func stop(removing: Bool = false) throws {
    if isRunning, let binaries = Self.binaries {
      isRunning = false
      try Self.run(binaries + "/pg_ctl", ["-D", folder + "/data", "-m", "fast", "-w", "stop"])
    }
    if removing { try? FileManager.default.removeItem(atPath: folder) }
  }

  /// Whether `openssl` is here to make a test certificate.
  public static var canMakeCertificates: Bool {
    FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
  }

  /// Makes a self-signed certificate for `127.0.0.1` in the server's folder and restarts the
  /// server so that it accepts TCP connections only over TLS (`ssl=on`, `hostssl` lines only in
  /// `pg_hba.conf`; the unix socket stays open to `psql`).
  /// - Returns: The certificate's path, for a client's `sslrootcert`.
  @discardableResult
  public func requireTLS() throws -> String {
    let certificate = try makeCertificate(named: "server")
    try Self.asServerUser(
      """
      local all all trust
      hostssl all all 127.0.0.1/32 trust

      """, write: folder + "/data/pg_hba.conf")
    let settings =
      (try String(contentsOfFile: folder + "/data/postgresql.conf", encoding: .utf8))
      + "\nssl = on\nssl_cert_file = '\(certificate)'\nssl_key_file = '\(folder)/server.key'\n"
    try Self.asServerUser(settings, write: folder + "/data/postgresql.conf")
    try stop()
    try start()
    return certificate
  }

  /// A self-signed certificate (and its key, readable by the server only) for `127.0.0.1`,
  /// made with `openssl` as `<name>.crt` and `<name>.key` in the server's folder.
  public func makeCertificate(named name: String) throws -> String {
    let certificate = "\(folder)/\(name).crt"
    let key = "\(folder)/\(name).key"
    try Self.run(
      "/usr/bin/openssl",
      [
        "req", "-new", "-x509", "-days", "2", "-nodes", "-newkey", "rsa:2048", "-subj",
        "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out",
        certificate,
      ])
    // The server refuses a key others can read.
    chmod(key, 0o600)
    chmod(certificate, 0o644)
    return certificate
  }

  /// Runs SQL through `psql` as `postgres` over the unix socket; returns its unaligned output.
  @discardableResult
  public func psql(_ sql: String) throws -> String {
    guard let binaries = Self.binaries else { return "" }
    return try Self.run(
      binaries + "/psql",
      [
        "-h", folder, "-p", String(port), "-U", "postgres", "-d", "postgres", "-v",
        "ON_ERROR_STOP=1", "-A", "-t", "-q", "-c", sql,
      ])
  }

  public struct ServerError: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
  }

  /// Runs a PostgreSQL program, as `nobody` when this process is root; throws with its output
  /// when it fails.
  ///
  /// Spawned with `posix_spawn` and every descriptor above 2 closed in the child, not with
  /// `Process`: the server `pg_ctl` starts would inherit the descriptor through which
  /// Foundation learns that its child ended, and `waitUntilExit` would wait for the server.
  @discardableResult
  static func run(_ program: String, _ arguments: [String]) throws -> String {
    let outputPath = "/tmp/replay-pg-output-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: outputPath) }
    // As `nobody`, from `/`: the caller's folder may be one `nobody` cannot enter (a CI clone
    // in a 0700 `mktemp -d`), and psql says so on its output.
    let argv =
      geteuid() == 0
      ? [
        "/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
        "/usr/bin/env", "-C", "/", program,
      ] + arguments
      : [program] + arguments
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o666)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // No descriptor of this process reaches the child (and the server it may start).
    for descriptor in 3..<min(getdtablesize(), 4096) {
      let flags = fcntl(descriptor, F_GETFD)
      if flags >= 0, flags & FD_CLOEXEC == 0 { _ = fcntl(descriptor, F_SETFD, flags | FD_CLOEXEC) }
    }
    let cStrings = argv.map { strdup($0) }
    defer { for cString in cStrings { free(cString) } }
    var pid: pid_t = 0
    let spawned = (cStrings + [nil]).withUnsafeBufferPointer { pointers in
      pointers.baseAddress.map { posix_spawn(&pid, argv[0], &actions, nil, $0, environ) } ?? EINVAL
    }
    guard spawned == 0 else { throw ServerError("cannot start \(argv[0]): error \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0, errno == EINTR {}
    let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
    // A normal exit with status 0: the low 7 bits hold a signal, the next 8 the exit status.
    guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
      throw ServerError("\(program) \(arguments) failed (status \(status)): \(text)")
    }
    return text
  }

  private static func asServerUser(_ text: String, write path: String) throws {
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    if geteuid() == 0 {
      try FileManager.default.setAttributes(
        [.ownerAccountID: 65534, .groupOwnerAccountID: 65534], ofItemAtPath: path)
    }
  }

  /// A TCP port nothing listens on now: bound to port 0, read back, closed.
  static func freePort() throws -> Int {
    #if canImport(Glibc)
      let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
      let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { throw ServerError("socket failed") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
        bind(descriptor, generic, length) == 0 && getsockname(descriptor, generic, &length) == 0
      }
    }
    guard bound else { throw ServerError("bind failed") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}
