import Foundation
// Re-exported: every file of this target sees the shared test support.
@_exported import ReplayTestSupport

/// Runs the built `replay` binary, as a user would.
struct ReplayProcess {
  struct Result {
    var status: Int32
    var output: String
    var error: String
  }

  /// The `replay` executable: `$REPLAY_BINARY` when set (CI points it at the release binary as
  /// `swift build -c release` makes it, since `swift test -c release` rebuilds everything with
  /// testing enabled), else the one next to the test bundle (`swift build` puts both in the same
  /// folder).
  static let executable: URL = {
    if let path = ProcessInfo.processInfo.environment["REPLAY_BINARY"], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    let candidates = [
      URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
      Bundle.main.bundleURL,
      Bundle.main.bundleURL.deletingLastPathComponent(),
    ]
    for folder in candidates {
      let url = folder.appendingPathComponent("replay")
      if FileManager.default.isExecutableFile(atPath: url.path) { return url }
    }
    // Fall back to the package's build folder of the configuration these tests were built in
    // (so that `swift test -c release` never runs a debug binary), found from this source file.
    var folder = URL(fileURLWithPath: #filePath)
    for _ in 0..<4 { folder.deleteLastPathComponent() }
    #if DEBUG
      return folder.appendingPathComponent(".build/debug/replay")
    #else
      return folder.appendingPathComponent(".build/release/replay")
    #endif
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

  /// Starts `replay` with `arguments`, its output thrown away, and kills it with `kill -9`
  /// after `seconds` (or once it ended by itself).
  static func killDashNine(_ arguments: [String], after seconds: Double) throws {
    let process = Process()
    process.executableURL = executable
    process.arguments = arguments
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    Thread.sleep(forTimeInterval: seconds)
    kill(process.processIdentifier, SIGKILL)
    process.waitUntilExit()
  }

  /// Runs `script` in bash until `done` holds `lines` lines (or 30 s pass), waits `extra`
  /// seconds more, then kills it and every `replay` working on `log` with `kill -9`.
  static func killDashNine(
    script: String, log: String, once done: String, holds lines: Int, extra: Double = 0
  ) throws {
    let shell = Process()
    shell.executableURL = URL(fileURLWithPath: "/bin/bash")
    shell.arguments = ["-c", script]
    try shell.run()
    var waited = 0
    while (try? String(contentsOfFile: done, encoding: .utf8))?.split(separator: "\n").count ?? 0
      < lines,
      waited < 600
    {
      Thread.sleep(forTimeInterval: 0.05)
      waited += 1
    }
    Thread.sleep(forTimeInterval: extra)
    kill(shell.processIdentifier, SIGKILL)
    let killer = Process()
    killer.executableURL = URL(fileURLWithPath: "/usr/bin/pkill")
    killer.arguments = ["-9", "-f", log]
    try killer.run()
    killer.waitUntilExit()
    shell.waitUntilExit()
  }
}

func fileBytes(_ path: String) -> [UInt8] {
  (try? Data(contentsOf: URL(fileURLWithPath: path))).map(Array.init) ?? []
}

/// Environment that makes appends reproducible and fast (no fsync needed in these tests).
let reproducible = ["REPLAY_CLOCK": "2026-11-01T09:00:00Z", "REPLAY_ID_SEED": "tests"]
