import Foundation

/// Runs `body` with the path of a new, empty directory of its own, and removes the directory
/// and everything in it afterwards, whether `body` returns or throws (as swift-system's
/// `withTemporaryDirectory`). Each call gets a unique directory, so tests run in parallel.
public func withTemporaryDirectory<T>(_ body: (String) throws -> T) throws -> T {
  let path = try makeTemporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try body(path)
}

/// `withTemporaryDirectory` for an `async` body.
public func withAsyncTemporaryDirectory<T>(_ body: (String) async throws -> T) async throws -> T {
  let path = try makeTemporaryDirectory()
  defer { try? FileManager.default.removeItem(atPath: path) }
  return try await body(path)
}

private func makeTemporaryDirectory() throws -> String {
  let path = FileManager.default.temporaryDirectory
    .appendingPathComponent("replay-tests-\(UUID().uuidString)").path
  try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
  return path
}
