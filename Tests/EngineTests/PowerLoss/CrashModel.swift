import Foundation

@testable import Engine

/// What a POSIX file system (ext4-like) holds at one point of a recorded run, and what of it is
/// on stable storage: the model the power-loss tests draw crash states from.
///
/// - A file's bytes are durable up to its last `fsync`/`fdatasync`; the writes and truncations
///   after it are pending. A power loss lands each pending write whole, not at all, torn at any
///   byte into parts that each land or not, or as zeros where it was about to land (the size
///   grew, the data did not); a pending truncation happens or not. A part that lands past a
///   part that did not leaves zeros (or the old bytes) in between.
/// - A folder's entries (files created, renamed, unlinked, folders made or removed) are durable
///   up to its last fsync; of those after it, a power loss keeps any prefix, in order (a journal
///   commits them in order). An entry whose folder's own entry is lost is lost with it.
/// - A file's data and its entry are independent: an fsynced file whose entry is lost is gone;
///   an entry that survives without its data names an empty or short file.
struct CrashModel {
  /// A folder entry: a file (index into `files`) or a folder.
  enum Entry: Equatable {
    case file(Int)
    case directory
  }

  /// A change to one file's bytes not yet synced.
  enum PendingChange {
    case write(offset: Int, bytes: [UInt8])
    case truncate(size: Int)
  }

  /// One file (an inode): its synced bytes and the changes since.
  struct File {
    var durable: [UInt8]
    var pending: [PendingChange] = []

    /// The bytes as a reader sees them before any crash.
    var current: [UInt8] {
      var bytes = durable
      for change in pending { CrashModel.apply(change, to: &bytes) }
      return bytes
    }
  }

  /// Changes to one folder's entries made by one operation (a rename changes two names).
  struct EntryChange {
    var directory: String
    var names: [(path: String, entry: Entry?)]
  }

  /// Entries (paths relative to the root, `""` is the root) on stable storage.
  private(set) var durableEntries: [String: Entry]
  /// Entries as the running process sees them.
  private(set) var currentEntries: [String: Entry]
  /// Entry changes not yet made durable by an fsync of their folder, in order.
  private(set) var pendingEntries: [EntryChange] = []
  private(set) var files: [File] = []
  private var identities: [FileIdentity: Int] = [:]
  let root: String

  /// The model of the folder `root` as it is now, all of it durable (a run starts from a
  /// folder that was synced, or that a crash cannot tear further).
  init(snapshotOf root: String) throws {
    self.root = root
    var entries: [String: Entry] = ["": .directory]
    var files: [File] = []
    var identities: [FileIdentity: Int] = [:]
    let manager = FileManager.default
    for relative in (manager.subpaths(atPath: root) ?? []).sorted() {
      let path = root + "/" + relative
      guard let status = FileDescriptor.status(atPath: path) else { continue }
      if status.isDirectory {
        entries[relative] = .directory
      } else {
        identities[FileIdentity(device: status.device, inode: status.inode)] = files.count
        entries[relative] = .file(files.count)
        files.append(File(durable: Array(try Data(contentsOf: URL(fileURLWithPath: path)))))
      }
    }
    durableEntries = entries
    currentEntries = entries
    self.files = files
    self.identities = identities
  }

  /// A recorded path relative to the root.
  func relative(_ path: String) throws -> String {
    if path == root { return "" }
    guard path.hasPrefix(root + "/") else { throw ModelError("\(path) is outside \(root)") }
    return String(path.dropFirst(root.count + 1))
  }

  static func parent(_ relative: String) -> String {
    guard let slash = relative.lastIndex(of: "/") else { return "" }
    return String(relative[..<slash])
  }

  struct ModelError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
  }

  /// Takes in one recorded operation.
  mutating func apply(_ operation: StorageOperation) throws {
    switch operation {
    case .create(let path, let identity):
      let name = try relative(path)
      identities[identity] = files.count
      files.append(File(durable: []))
      change(name, to: .file(files.count - 1))
    case .write(let path, let identity, let offset, let bytes):
      files[try file(identity, path)].pending.append(.write(offset: Int(offset), bytes: bytes))
    case .truncate(let path, let identity, let size):
      files[try file(identity, path)].pending.append(.truncate(size: Int(size)))
    case .synchronize(let path, let identity):
      let index = try file(identity, path)
      files[index] = File(durable: files[index].current)
    case .rename(let from, let to):
      let source = try relative(from)
      let destination = try relative(to)
      guard let entry = currentEntries[source] else {
        throw ModelError("rename of missing \(from)")
      }
      let change = EntryChange(
        directory: Self.parent(destination), names: [(source, nil), (destination, entry)])
      record(change)
    case .unlink(let path):
      change(try relative(path), to: nil)
    case .makeDirectory(let path):
      change(try relative(path), to: .directory)
    case .removeDirectory(let path):
      change(try relative(path), to: nil)
    case .synchronizeDirectory(let path):
      let directory = try relative(path)
      for pending in pendingEntries where pending.directory == directory {
        for (name, entry) in pending.names { durableEntries[name] = entry }
      }
      pendingEntries.removeAll { $0.directory == directory }
    }
  }

  private func file(_ identity: FileIdentity, _ path: String) throws -> Int {
    guard let index = identities[identity] else {
      throw ModelError(
        "\(path) (\(identity)) was changed but never created through the file layer nor there at the start"
      )
    }
    return index
  }

  private mutating func change(_ name: String, to entry: Entry?) {
    record(EntryChange(directory: Self.parent(name), names: [(name, entry)]))
  }

  private mutating func record(_ change: EntryChange) {
    for (name, entry) in change.names { currentEntries[name] = entry }
    pendingEntries.append(change)
  }

  static func apply(_ change: PendingChange, to bytes: inout [UInt8]) {
    switch change {
    case .write(let offset, let written):
      place(written[...], at: offset, in: &bytes)
    case .truncate(let size):
      if size < bytes.count {
        bytes.removeSubrange(size...)
      } else {
        bytes += repeatElement(0, count: size - bytes.count)
      }
    }
  }

  /// Writes `part` at `offset`, growing `bytes` with zeros up to it when needed.
  static func place(_ part: ArraySlice<UInt8>, at offset: Int, in bytes: inout [UInt8]) {
    if bytes.count < offset { bytes += repeatElement(0, count: offset - bytes.count) }
    let overlap = min(part.count, bytes.count - offset)
    bytes.replaceSubrange(offset..<(offset + overlap), with: part.prefix(overlap))
    bytes += part.dropFirst(overlap)
  }
}
