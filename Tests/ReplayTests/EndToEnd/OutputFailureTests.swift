import Foundation
import Testing

/// Standard output that cannot be written: past a file-size limit (`ulimit -f`, EFBIG), on a
/// full device (`/dev/full`, ENOSPC), closed (EBADF), or a pipe whose reader went away (EPIPE).
/// Every failure but the closed pipe is exit 74 with one message naming standard output and the
/// system's reason; a closed pipe ends quietly; `--follow` ends as soon as its output fails.
@Suite struct OutputFailureTests {
  static let fileTooLarge =
    "Error: cannot write to standard output: File too large; the output is incomplete\n"
  static let noSpace =
    "Error: cannot write to standard output: No space left on device; the output is incomplete\n"
  static let badDescriptor =
    "Error: cannot write to standard output: Bad file descriptor; the output is incomplete\n"
  static let hasFullDevice = FileManager.default.fileExists(atPath: "/dev/full")

  /// Runs `replay` with `arguments` through `/bin/bash -c script`, where the script runs it as
  /// `exec "$0" "$@"` and `$OUTPUT` is `output`.
  static func runInShell(
    _ script: String, _ arguments: [String], output: String = "/dev/null"
  ) throws -> ReplayProcess.Result {
    try ReplayProcess.run(
      ["-c", script, ReplayProcess.executable.path] + arguments,
      environment: ["OUTPUT": output], executable: URL(fileURLWithPath: "/bin/bash"))
  }

  /// Commands whose standard output is well over 1 KiB on the sample log.
  static let largeOutputs: [[String]] = [
    ["log", "--json"], ["log"], ["state", "--json"], ["state"], ["history", "state-Arizona"],
    ["history", "state-Arizona", "--json"], ["export", "contacts"], ["export", "zipcodes"],
  ]

  @Test(arguments: largeOutputs)
  func aFileSizeLimitOnStandardOutputIsExit74(arguments: [String]) throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let whole = try ReplayProcess.run(arguments + ["--log", log])
      #expect(whole.status == 0, "\(whole.error)")
      #expect(whole.output.utf8.count > 1024)
      let output = directory + "/out"
      let limited = try Self.runInShell(
        #"trap "" XFSZ; ulimit -f 1; exec "$0" "$@" > "$OUTPUT""#, arguments + ["--log", log],
        output: output)
      #expect(limited.status == 74)
      #expect(limited.error == Self.fileTooLarge)
      // What was written is the output's beginning, cut at the limit.
      #expect(fileBytes(output) == Array(whole.output.utf8.prefix(1024)))
    }
  }

  @Test(.enabled(if: hasFullDevice), arguments: [["state", "--json"], ["log", "--json"]])
  func aFullDeviceIsExit74(arguments: [String]) throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let result = try Self.runInShell(
        #"exec "$0" "$@" > /dev/full"#, arguments + ["--log", log])
      #expect(result.status == 74)
      #expect(result.error == Self.noSpace)
    }
  }

  @Test func aClosedStandardOutputIsExit74AndTheLogIsUntouched() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let before = fileBytes(log)
      let result = try Self.runInShell(
        #"exec "$0" "$@" >&-"#, ["contacts", "favorite", "13", "--log", log])
      #expect(result.status == 74)
      #expect(result.error == Self.badDescriptor)
      // The event was appended (before the report of it could not be printed); the log is
      // still whole: nothing meant for standard output landed in it.
      let verify = try ReplayProcess.run(["verify", "--log", log])
      #expect(verify.status == 0, "\(verify.output)\(verify.error)")
      #expect(fileBytes(log).count > before.count)
    }
  }

  /// `rebuild` notes each checkpoint it saved on standard error, after its summary: not after
  /// a summary that could not be written.
  @Test(.enabled(if: hasFullDevice))
  func nothingFollowsAFailedWriteOnStandardErrorButTheError() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let every = try ReplayProcess.run(["checkpoint", "--every", "50", "--log", log])
      #expect(every.status == 0, "\(every.error)")
      func removeCheckpoints() throws {
        let folder = log + ".checkpoints"
        for name in try FileManager.default.contentsOfDirectory(atPath: folder)
        where name.hasSuffix(".ckpt") {
          try FileManager.default.removeItem(atPath: folder + "/" + name)
        }
      }
      try removeCheckpoints()
      let written = try ReplayProcess.run(["rebuild", "--log", log])
      #expect(written.status == 0)
      #expect(written.error.contains("note: saved a checkpoint at seq 50"))
      try removeCheckpoints()
      let failed = try Self.runInShell(#"exec "$0" "$@" > /dev/full"#, ["rebuild", "--log", log])
      #expect(failed.status == 74)
      #expect(failed.error == Self.noSpace)
    }
  }

  @Test func aClosedPipeEndsQuietly() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      // Killed by SIGPIPE as before (141 in the shell), or done before `head` left (0).
      let piped = try Self.runInShell(
        #""$0" "$@" | head -c 10 > "$OUTPUT"; echo "${PIPESTATUS[0]}""#,
        ["log", "--json", "--log", log], output: directory + "/head")
      #expect(piped.error == "")
      #expect(["0\n", "141\n"].contains(piped.output))
      #expect(fileBytes(directory + "/head") == Array(#"{"seq":1,""#.utf8))
    }
  }

  /// With SIGPIPE ignored (as a parent may leave it), writes fail with EPIPE: still quiet.
  @Test(arguments: [["log", "--json"], ["log"], ["state", "--json"], ["export", "contacts"]])
  func aPipeClosedBeforeTheFirstWriteEndsQuietlyWithSIGPIPEIgnored(arguments: [String]) throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let pipe = try OutputPipe()
      pipe.closeReadEnd()
      defer { pipe.closeWriteEnd() }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/bash")
      process.arguments =
        ["-c", #"trap "" PIPE; exec "$0" "$@""#, ReplayProcess.executable.path] + arguments
        + ["--log", log]
      process.standardOutput = pipe.writeHandle
      let errorPath = directory + "/err"
      _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
      process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
      try process.run()
      pipe.closeWriteEnd()
      try #require(waitForExit(process))
      #expect(process.terminationReason == .exit)
      #expect(process.terminationStatus == 0)
      #expect(fileBytes(errorPath) == [])
    }
  }

  /// `log -f` writing to a pipe whose reader is gone ends (quietly) once it has an event to
  /// write, if not before.
  @Test func logFollowEndsWhenItsPipeReaderIsGone() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let pipe = try OutputPipe()
      defer {
        pipe.closeReadEnd()
        pipe.closeWriteEnd()
      }
      let errorPath = directory + "/err"
      let follower = try start(
        ["log", "-f", "--json", "--from", "148", "--log", log], output: pipe.writeHandle,
        error: errorPath)
      defer { if follower.isRunning { follower.terminate() } }
      pipe.closeWriteEnd()
      pipe.closeReadEnd()
      let appended = try ReplayProcess.run(["contacts", "favorite", "13", "--log", log])
      #expect(appended.status == 0, "\(appended.error)")
      try #require(waitForExit(follower))
      #expect(follower.terminationReason == .exit)
      #expect(follower.terminationStatus == 0)
      #expect(fileBytes(errorPath) == [])
    }
  }

  /// `log -f` writing to a file past a file-size limit, or to a closed standard output, waits
  /// while there is nothing to write, then ends with exit 74 at its first write.
  @Test(arguments: [
    (#"trap "" XFSZ; ulimit -f 0; exec "$0" "$@" > "$OUTPUT""#, fileTooLarge),
    (#"exec "$0" "$@" >&-"#, badDescriptor),
  ])
  func logFollowEndsWhenItsOutputFails(script: String, message: String) throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      // Standard error goes to a pipe: the file-size limit applies to every file it writes.
      let errorPipe = try OutputPipe()
      defer {
        errorPipe.closeReadEnd()
        errorPipe.closeWriteEnd()
      }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/bin/bash")
      process.arguments = [
        "-c", script, ReplayProcess.executable.path, "log", "-f", "--from", "148", "--log", log,
      ]
      process.environment = ProcessInfo.processInfo.environment.merging([
        "OUTPUT": directory + "/out"
      ]) { $1 }
      process.standardOutput = FileHandle.nullDevice
      process.standardError = errorPipe.writeHandle
      try process.run()
      errorPipe.closeWriteEnd()
      defer { if process.isRunning { process.terminate() } }
      // Nothing to write yet: it waits.
      usleep(300_000)
      #expect(process.isRunning)
      let appended = try ReplayProcess.run(["contacts", "favorite", "13", "--log", log])
      #expect(appended.status == 0, "\(appended.error)")
      try #require(waitForExit(process))
      #expect(process.terminationStatus == 74)
      let error = errorPipe.readHandle.readDataToEndOfFile()
      #expect(String(decoding: error, as: UTF8.self) == message)
    }
  }

  @Test func stateFollowEndsWhenItsOutputFails() throws {
    try withTemporaryDirectory { directory in
      let log = try RepositoryFiles.copySampleLog(to: directory)
      let result = try Self.runInShell(
        #"trap "" XFSZ; ulimit -f 1; exec timeout 20 "$0" "$@" > "$OUTPUT""#,
        ["state", "contacts", "-f", "--json", "--log", log], output: directory + "/out")
      #expect(result.status == 74)
      #expect(result.error == Self.fileTooLarge)
    }
  }

  // MARK: - Helpers

  /// Starts `replay` in the background, its standard error going to the file `errorPath`.
  private func start(
    _ arguments: [String], output: FileHandle, error errorPath: String
  ) throws -> Process {
    let process = Process()
    process.executableURL = ReplayProcess.executable
    process.arguments = arguments
    process.standardOutput = output
    _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
    process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
    try process.run()
    return process
  }

  /// Waits up to 10 s for `process` to end; whether it did.
  private func waitForExit(_ process: Process) -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning { return false }
    process.waitUntilExit()
    return true
  }
}

/// A pipe whose two ends this test closes itself, each exactly once (Foundation's `Pipe` may
/// close them behind its back).
private final class OutputPipe {
  private var readDescriptor: Int32
  private var writeDescriptor: Int32
  /// The write end, for a child's standard output; it does not close the descriptor.
  let writeHandle: FileHandle
  /// The read end; it does not close the descriptor.
  let readHandle: FileHandle

  init() throws {
    var descriptors: [Int32] = [-1, -1]
    guard pipe(&descriptors) == 0 else { throw POSIXError(.EMFILE) }
    // Other tests' children must not inherit either end: a reader that lives on in another
    // process would keep the pipe open.
    for descriptor in descriptors { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    readDescriptor = descriptors[0]
    writeDescriptor = descriptors[1]
    writeHandle = FileHandle(fileDescriptor: descriptors[1], closeOnDealloc: false)
    readHandle = FileHandle(fileDescriptor: descriptors[0], closeOnDealloc: false)
  }

  func closeReadEnd() {
    if readDescriptor >= 0 { close(readDescriptor) }
    readDescriptor = -1
  }

  func closeWriteEnd() {
    if writeDescriptor >= 0 { close(writeDescriptor) }
    writeDescriptor = -1
  }
}
