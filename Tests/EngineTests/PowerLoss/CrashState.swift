import Foundation

@testable import Engine

/// One folder as a power loss may leave it at one point of a recorded run.
struct CrashState: CustomStringConvertible {
  /// How many recorded operations had been made when the power went.
  var point: Int
  /// What the crash kept and lost, in words (for a failure message).
  var choices: [String]
  /// Folders (relative paths), parents first.
  var directories: [String]
  /// Files (relative paths) and their bytes.
  var files: [String: [UInt8]]

  var description: String {
    "crash after operation \(point): "
      + (choices.isEmpty ? "everything made so far is durable" : choices.joined(separator: "; "))
  }

  /// Writes the state into the empty folder `folder`.
  func materialize(in folder: String) throws {
    for directory in directories {
      try FileManager.default.createDirectory(
        atPath: folder + "/" + directory, withIntermediateDirectories: false)
    }
    for (name, bytes) in files {
      try Data(bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
    }
  }

  /// How the pending changes are chosen.
  enum Kind: CaseIterable {
    /// Only what was synced: every pending write and entry change lost.
    case onlySynced
    /// Everything the process did (as a clean shutdown leaves it).
    case everything
    /// Each pending change kept, lost, torn or zeroed at random.
    case random
  }
}

extension CrashModel {
  /// The state a power loss leaves now (after `point` operations), chosen as `kind` says.
  func crashState(
    point: Int, kind: CrashState.Kind, random: inout SplitMix64
  ) -> CrashState {
    var choices: [String] = []
    // Entries: per folder, a prefix of its pending changes.
    var entries = durableEntries
    var kept: [String: Int] = [:]
    var pendingCount: [String: Int] = [:]
    for change in pendingEntries { pendingCount[change.directory, default: 0] += 1 }
    for (directory, count) in pendingCount.sorted(by: { $0.key < $1.key }) {
      switch kind {
      case .onlySynced: kept[directory] = 0
      case .everything: kept[directory] = count
      case .random:
        kept[directory] = Int(random.next() % UInt64(count + 1))
        choices.append(
          "folder '\(directory)': \(kept[directory] ?? 0) of \(count) entry changes kept")
      }
    }
    var seen: [String: Int] = [:]
    for change in pendingEntries {
      let index = seen[change.directory, default: 0]
      seen[change.directory] = index + 1
      guard index < kept[change.directory, default: 0] else { continue }
      for (name, entry) in change.names { entries[name] = entry }
    }
    if kind == .onlySynced, !pendingEntries.isEmpty {
      choices.append("\(pendingEntries.count) unsynced entry changes lost")
    }
    // Reachable entries only: a folder's entry lost takes its contents with it.
    var reachable = entries.filter { name, _ in
      var parent = Self.parent(name)
      while !parent.isEmpty {
        guard entries[parent] == .directory else { return false }
        parent = Self.parent(parent)
      }
      return true
    }
    reachable[""] = nil
    // Bytes: each file's pending changes kept, lost, torn or zeroed.
    var contents: [Int: [UInt8]] = [:]
    for case (let name, .file(let index)) in reachable.sorted(by: { $0.key < $1.key }) {
      guard contents[index] == nil else { continue }
      let file = files[index]
      switch kind {
      case .onlySynced:
        contents[index] = file.durable
        if !file.pending.isEmpty {
          choices.append("'\(name)': \(file.pending.count) unsynced changes lost")
        }
      case .everything:
        contents[index] = file.current
      case .random:
        var bytes = file.durable
        for (number, change) in file.pending.enumerated() {
          let fate = Self.land(change, on: &bytes, random: &random)
          choices.append("'\(name)' change \(number + 1) of \(file.pending.count): \(fate)")
        }
        contents[index] = bytes
      }
    }
    var directories: [String] = []
    var files: [String: [UInt8]] = [:]
    for (name, entry) in reachable.sorted(by: { $0.key < $1.key }) {
      switch entry {
      case .directory: directories.append(name)
      case .file(let index): files[name] = contents[index] ?? []
      }
    }
    return CrashState(point: point, choices: choices, directories: directories, files: files)
  }

  /// Lands `change` on `bytes` as a power loss may; returns what it did, in words.
  static func land(
    _ change: PendingChange, on bytes: inout [UInt8], random: inout SplitMix64
  ) -> String {
    switch change {
    case .truncate(let size):
      guard random.next() % 2 == 0 else { return "truncation to \(size) lost" }
      apply(change, to: &bytes)
      return "truncation to \(size) made"
    case .write(let offset, let written):
      guard !written.isEmpty else { return "empty write" }
      // Up to three parts, cut at random bytes; each lands, is lost, or lands as zeros.
      var cuts = Set<Int>()
      for _ in 0..<Int(random.next() % 3) where written.count > 1 {
        cuts.insert(1 + Int(random.next() % UInt64(written.count - 1)))
      }
      let bounds = [0] + cuts.sorted() + [written.count]
      var fates: [String] = []
      for part in 0..<(bounds.count - 1) {
        let range = bounds[part]..<bounds[part + 1]
        let roll = random.next() % 100
        if roll < 45 {
          place(written[range], at: offset + range.lowerBound, in: &bytes)
          fates.append("\(range) landed")
        } else if roll < 80 {
          fates.append("\(range) lost")
        } else {
          place(
            ArraySlice(repeatElement(UInt8(0), count: range.count)), at: offset + range.lowerBound,
            in: &bytes)
          fates.append("\(range) zeros")
        }
      }
      return "write of \(written.count) bytes at \(offset): " + fates.joined(separator: ", ")
    }
  }
}
