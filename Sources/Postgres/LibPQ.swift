#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

/// PostgreSQL's client library, loaded when first needed with `dlopen`: the package links
/// nothing, so a machine without libpq builds and runs every command that does not talk to
/// PostgreSQL. libpq brings SCRAM-SHA-256 and md5 authentication, TLS (`sslmode=require`,
/// `verify-full`), `~/.pgpass` and the `PG*` environment variables with it.
///
/// Only the functions the engine calls are looked up; each field is one of them.
struct LibPQ: @unchecked Sendable {
  // @unchecked: every field is a C function pointer, set once when the library is loaded and
  // never changed; calling them is as thread-safe as libpq itself (one connection a thread).
  typealias Handle = OpaquePointer

  let connect: @convention(c) (UnsafePointer<CChar>) -> Handle?
  let status: @convention(c) (Handle?) -> Int32
  let errorMessage: @convention(c) (Handle?) -> UnsafeMutablePointer<CChar>?
  let finish: @convention(c) (Handle?) -> Void
  let needsPassword: @convention(c) (Handle?) -> Int32
  let serverVersion: @convention(c) (Handle?) -> Int32
  let sslInUse: @convention(c) (Handle?) -> Int32
  let exec: @convention(c) (Handle?, UnsafePointer<CChar>) -> Handle?
  let execParams:
    @convention(c) (
      Handle?, UnsafePointer<CChar>, Int32, UnsafePointer<UInt32>?,
      UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32
    ) -> Handle?
  let resultStatus: @convention(c) (Handle?) -> Int32
  let resultErrorMessage: @convention(c) (Handle?) -> UnsafeMutablePointer<CChar>?
  let resultErrorField: @convention(c) (Handle?, Int32) -> UnsafeMutablePointer<CChar>?
  let rowCount: @convention(c) (Handle?) -> Int32
  let columnCount: @convention(c) (Handle?) -> Int32
  let value: @convention(c) (Handle?, Int32, Int32) -> UnsafeMutablePointer<CChar>?
  let isNull: @convention(c) (Handle?, Int32, Int32) -> Int32
  let affectedRows: @convention(c) (Handle?) -> UnsafeMutablePointer<CChar>?
  let clear: @convention(c) (Handle?) -> Void
  let putCopyData: @convention(c) (Handle?, UnsafePointer<CChar>?, Int32) -> Int32
  let putCopyEnd: @convention(c) (Handle?, UnsafePointer<CChar>?) -> Int32
  let getResult: @convention(c) (Handle?) -> Handle?
  // For LISTEN: the connection's socket, reading what arrived, and the notifications read.
  let socket: @convention(c) (Handle?) -> Int32
  let consumeInput: @convention(c) (Handle?) -> Int32
  let notifies: @convention(c) (Handle?) -> UnsafeMutableRawPointer?
  let freeMemory: @convention(c) (UnsafeMutableRawPointer?) -> Void
  // Parsing a connection string without connecting, and freeing what it returns.
  let parseOptions:
    @convention(c) (
      UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
    ) -> UnsafeMutableRawPointer?
  let freeOptions: @convention(c) (UnsafeMutableRawPointer?) -> Void

  /// `ConnStatusType`'s `CONNECTION_OK`.
  static let connectionOK: Int32 = 0
  /// `ExecStatusType`'s `PGRES_COMMAND_OK` and `PGRES_TUPLES_OK`.
  static let commandOK: Int32 = 1
  static let tuplesOK: Int32 = 2
  /// `PGRES_COPY_IN`: the server waits for `COPY ... FROM STDIN`'s data.
  static let copyIn: Int32 = 4
  /// `PG_DIAG_SQLSTATE`, `PG_DIAG_MESSAGE_PRIMARY` and `PG_DIAG_MESSAGE_DETAIL`.
  static let fieldSQLState = Int32(UInt8(ascii: "C"))
  static let fieldMessage = Int32(UInt8(ascii: "M"))
  static let fieldDetail = Int32(UInt8(ascii: "D"))

  /// Why libpq cannot parse the connection string `url` (a bad percent escape, an unknown
  /// parameter, an unclosed `[`), nil when it can. Nothing is connected to.
  func parseError(_ url: String) -> String? {
    var error: UnsafeMutablePointer<CChar>?
    guard let options = parseOptions(url, &error) else {
      defer { freeMemory(error) }
      return error.map { String(cString: $0) } ?? "libpq could not parse it"
    }
    freeOptions(options)
    return nil
  }

  /// The names tried, in order, when `REPLAY_LIBPQ` does not name the library.
  static var defaultNames: [String] {
    #if canImport(Darwin)
      [
        "libpq.5.dylib", "/opt/homebrew/opt/libpq/lib/libpq.5.dylib",
        "/usr/local/opt/libpq/lib/libpq.5.dylib", "libpq.dylib",
      ]
    #else
      ["libpq.so.5", "libpq.so"]
    #endif
  }

  /// The library, loaded once per process; the error says what was tried and how to install it.
  static let shared: Result<LibPQ, PostgresError> = {
    let override = getenv("REPLAY_LIBPQ").map { String(cString: $0) } ?? ""
    return load(names: override.isEmpty ? defaultNames : [override])
  }()

  /// Loads the first of `names` that `dlopen` finds and looks every function up in it.
  static func load(names: [String]) -> Result<LibPQ, PostgresError> {
    var reasons: [String] = []
    for name in names {
      guard let library = dlopen(name, RTLD_NOW | RTLD_LOCAL) else {
        reasons.append(dlerror().map { String(cString: $0) } ?? "\(name): not found")
        continue
      }
      do {
        return .success(try LibPQ(library: library))
      } catch {
        return .failure(error)
      }
    }
    return .failure(.libraryMissing(tried: names, reason: reasons.last ?? "not found"))
  }

  private init(library: UnsafeMutableRawPointer) throws(PostgresError) {
    func symbol<Function>(_ name: String) throws(PostgresError) -> Function {
      guard let address = dlsym(library, name) else {
        throw .libraryMissing(
          tried: [name], reason: "the loaded libpq has no function '\(name)'; it is too old")
      }
      return unsafeBitCast(address, to: Function.self)
    }
    connect = try symbol("PQconnectdb")
    status = try symbol("PQstatus")
    errorMessage = try symbol("PQerrorMessage")
    finish = try symbol("PQfinish")
    needsPassword = try symbol("PQconnectionNeedsPassword")
    serverVersion = try symbol("PQserverVersion")
    sslInUse = try symbol("PQsslInUse")
    exec = try symbol("PQexec")
    execParams = try symbol("PQexecParams")
    resultStatus = try symbol("PQresultStatus")
    resultErrorMessage = try symbol("PQresultErrorMessage")
    resultErrorField = try symbol("PQresultErrorField")
    rowCount = try symbol("PQntuples")
    columnCount = try symbol("PQnfields")
    value = try symbol("PQgetvalue")
    isNull = try symbol("PQgetisnull")
    affectedRows = try symbol("PQcmdTuples")
    clear = try symbol("PQclear")
    putCopyData = try symbol("PQputCopyData")
    putCopyEnd = try symbol("PQputCopyEnd")
    getResult = try symbol("PQgetResult")
    socket = try symbol("PQsocket")
    consumeInput = try symbol("PQconsumeInput")
    notifies = try symbol("PQnotifies")
    freeMemory = try symbol("PQfreemem")
    parseOptions = try symbol("PQconninfoParse")
    freeOptions = try symbol("PQconninfoFree")
  }
}
