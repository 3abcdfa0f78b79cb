import Foundation

/// Runs the built `replay` binary, as a user would.
struct ReplayProcess {
  struct Result {
    var status: Int32
    var output: String
    var error: String
  }

  /// The `replay` executable next to the test bundle (`swift build` puts both in the same
  /// folder).
  static let executable: URL = {
    let candidates = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      Bundle.main.bundleURL,
      Bundle.main.bundleURL.deletingLastPathComponent(),
    ]
    for folder in candidates {
      let url = folder.appendingPathComponent("replay")
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    // Fall back to the package's debug build folder, found from this source file.
    var folder = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { folder.deleteLastPathComponent() }
    return folder.appendingPathComponent(".build/debug/replay")
  }()

  /// Runs `replay` with `arguments`, optional standard input and extra environment; waits.
  @discardableResult
  static func run(
    _ arguments: [String], input: String? = nil, environment: [String: String] = [:],
    directory: String? = nil, executable: URL = Self.executable
  ) throws -> Result {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    var base = ProcessInfo.processInfo.environment
    // Keep the caller's environment from leaking in.
    for key in ["REPLAY_LOG", "REPLAY_CLOCK", "REPLAY_ID_SEED"] { base[key] = nil }
    process.environment = base.merging(environment) { _, new in new }
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    // Output goes to files, not pipes, so a chatty child can never block on a full pipe.
    let scratch = FileManager.default.temporaryDirectory
      .appendingPathComponent("replay-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let outputURL = scratch.appendingPathComponent("stdout")
    let errorURL = scratch.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
    let output = try FileHandle(forWritingTo: outputURL)
    let error = try FileHandle(forWritingTo: errorURL)
    defer {
      try? output.close()
      try? error.close()
    }
    let inputPipe = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = inputPipe
    try process.run()
    if let input { inputPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try inputPipe.fileHandleForWriting.close()
    process.waitUntilExit()
    return Result(
      status: process.terminationStatus,
      output: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
      error: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
  }
}

/// Runs `body` with a fresh directory that is removed afterwards.
func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("replay-e2e-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try body(path)
}

func fileBytes(_ path: String) -> [UInt8] {
  (try? Data(contentsOf: URL(fileURLWithPath: path))).map(Array.init) ?? []
}

/// Environment that makes appends reproducible and fast (no fsync needed in these tests).
let reproducible = ["REPLAY_CLOCK": "2026-11-01T09:00:00Z", "REPLAY_ID_SEED": "tests"]
