import Events
import Foundation
import Projections

/// The checkpoint sidecar of a log: saved read-model states in `<log>.checkpoints/`, one file
/// per checkpoint (`seq-000000001000.ckpt`), each tied to the log prefix it was built from.
///
/// A checkpoint records the `seq` and byte offset it covers, the SHA-256 of those bytes (and the
/// hasher's midstate, so the next checkpoint's digest continues from it), and a fingerprint of
/// sample lines: the lines at seq 1, 2, 4, 8, … and its last line, by offset, length and stored
/// checksum. Before a checkpoint is used, those sample lines are read back and compared (a few
/// dozen small reads): a log that was truncated, replaced or rewritten at those places no
/// longer matches and the checkpoint is ignored. `verify` re-hashes the whole prefix for an
/// exact proof. Deleting the folder loses nothing: checkpoints are caches of the log.
public struct CheckpointStore: Sendable {
  /// The sidecar folder.
  public let directory: String
  /// The log it belongs to.
  public var logPath: String { openLog.path }
  /// The log, as this process has it open.
  let openLog: OpenLog

  public init(logPath: String) {
    openLog = OpenLog.named(logPath)
    directory = openLog.files.checkpointsPath
  }

  /// What ties a checkpoint to its log.
  public struct Anchor: Sendable, Equatable {
    /// Offset just past the line of the checkpoint's last event.
    public var offset: Int64
    /// SHA-256 of the log's bytes `0..<offset`.
    public var sha256: [UInt8]
    /// The hasher's state after those bytes.
    public var midstate: [UInt8]
    /// The latest `at` among the events covered (for `--as-of`).
    public var latestTimestamp: Timestamp
    /// Sample lines: where they start, their length without `\n`, and their stored checksum.
    public var samples: [Sample]

    public struct Sample: Sendable, Equatable {
      public var offset: Int64
      public var length: Int
      public var checksum: String
    }

    /// The anchor as the compact text stored in the checkpoint file.
    var text: String {
      var writer = JSONWriter()
      writer.beginObject()
      writer.key("v")
      writer.integer(1)
      writer.key("offset")
      writer.integer(offset)
      writer.key("sha256")
      writer.string(SHA256.hex(sha256))
      writer.key("midstate")
      writer.string(SHA256.hex(midstate))
      writer.key("latestAt")
      writer.string(latestTimestamp.description)
      writer.key("samples")
      writer.beginArray()
      for sample in samples {
        writer.beginArray()
        writer.integer(sample.offset)
        writer.integer(sample.length)
        writer.string(sample.checksum)
        writer.endArray()
      }
      writer.endArray()
      writer.endObject()
      return String(decoding: writer.bytes, as: UTF8.self)
    }
  }

  /// A checkpoint file and the seq its name gives.
  public struct Entry: Sendable, Equatable {
    public var sequence: Int64
    public var path: String
    public var byteCount: Int64
  }

  /// The checkpoints present, oldest first.
  public func entries() -> [Entry] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return []
    }
    return names.compactMap { name -> Entry? in
      guard name.hasPrefix("seq-"), name.hasSuffix(".ckpt"),
        let sequence = Int64(name.dropFirst(4).dropLast(5))
      else { return nil }
      let path = directory + "/" + name
      let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
      return Entry(sequence: sequence, path: path, byteCount: Int64(size))
    }
    .sorted { $0.sequence < $1.sequence }
  }

  /// Temporary files of checkpoints being written, or left by killed processes
  /// (`seq-….ckpt.tmp-…`).
  public func temporaryFiles() -> [String] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
      return []
    }
    return names.filter { $0.hasPrefix("seq-") && $0.contains(".ckpt.tmp-") }.sorted()
      .map { directory + "/" + $0 }
  }

  /// The file name of the checkpoint at `sequence`.
  func path(for sequence: Int64) -> String {
    let digits = String(sequence)
    return directory + "/seq-" + String(repeating: "0", count: max(0, 12 - digits.count)) + digits
      + ".ckpt"
  }

  /// How often replays save checkpoints on their own (`replay checkpoint --every`), if set.
  public var interval: Int64? {
    guard let text = try? String(contentsOfFile: directory + "/every", encoding: .utf8) else {
      return nil
    }
    return Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)).flatMap { $0 > 0 ? $0 : nil }
  }

  /// Sets (or with `nil` clears) the interval at which replays save checkpoints.
  public func setInterval(_ interval: Int64?) throws {
    try SidecarFile.createDirectory(directory)
    let path = directory + "/every"
    if let interval {
      try SidecarFile.write(Array((String(interval) + "\n").utf8), to: path)
    } else {
      SidecarFile.remove(path)
    }
  }

  /// Saves `models` as the state after event `sequence`; written to a temporary name and
  /// renamed, so a crash never leaves half a checkpoint under a checkpoint's name.
  ///
  /// Contacts' personal data is sealed under keys derived from the contacts' own keys
  /// (`LogCheckpointKeys`): a checkpoint holds nothing in clear that the log does not, and an
  /// erasure that destroys a key erases the contact in every checkpoint, even one a reader
  /// saves while the erasure runs. Temporary files of killed savers are removed here.
  ///
  /// The folder is bound to the log file (`bindingPath`): when it was made for another file (a
  /// copy of another log's folder) or says nothing, its checkpoints are removed before the
  /// folder is bound to this log, so that no checkpoint of another log is ever used.
  public func save(_ models: ReadModels, sequence: Int64, anchor: Anchor) throws {
    try SidecarFile.createDirectory(directory)
    for leftover in temporaryFiles() where SidecarFile.isLeftoverOfDeadProcess(leftover) {
      PathOperations.unlink(leftover)
    }
    try bindToLog()
    let bytes = ReadModelCheckpoint(models: models, sequence: sequence, anchor: anchor.text)
      .encoded(keys: LogCheckpointKeys(openLog))
    try SidecarFile.write(bytes, to: path(for: sequence))
  }

  /// The file in the folder that says which log file its checkpoints were made from
  /// (`device 2049 inode 1234`, `LogFileIdentity`).
  public var bindingPath: String { directory + "/log-file" }

  /// The log file the folder's checkpoints were made from, `nil` when no file says.
  func boundIdentity() -> LogFileIdentity? {
    guard var bytes = Self.contents(of: bindingPath) else { return nil }
    if bytes.last == 0x0A { bytes.removeLast() }
    return LogFileIdentity(text: String(decoding: bytes, as: UTF8.self))
  }

  /// Binds the folder to the log file now at `logPath`, first removing the checkpoints of
  /// another file (or of none) that it holds.
  func bindToLog() throws {
    guard let status = FileDescriptor.status(atPath: logPath) else {
      throw EngineError.fileNotFound(path: logPath)
    }
    let identity = LogFileIdentity(status)
    guard boundIdentity() != identity else { return }
    for entry in entries() where !SidecarFile.remove(entry.path) {
      throw EngineError.io(path: entry.path, operation: "unlink", code: errno)
    }
    try SidecarFile.write(Array((identity.description + "\n").utf8), to: bindingPath)
  }

  /// A loaded checkpoint.
  public struct Loaded: Sendable {
    public var models: ReadModels
    public var sequence: Int64
    public var anchor: Anchor
  }

  /// Why a checkpoint cannot be used.
  public struct Rejection: Error, Sendable, CustomStringConvertible {
    public var path: String
    public var reason: String
    public var description: String { "checkpoint '\(path)' ignored: \(reason)" }
  }

  /// Loads the checkpoint `entry` and checks that the log still holds the prefix it was built
  /// from (the sample lines); with `models` naming some models, only those are decoded.
  public func load(
    _ entry: Entry, models names: Set<String>? = nil, checkingLog: Bool = true
  ) throws(Rejection) -> Loaded {
    func reject(_ reason: String) -> Rejection { Rejection(path: entry.path, reason: reason) }
    guard let bytes = Self.contents(of: entry.path) else { throw reject("it cannot be read") }
    var models = ReadModels()
    let sequence: Int64
    let anchorText: String
    do throws(ProjectionsError) {
      if let names, names.count < ReadModels.modelNames.count {
        var header: (sequence: Int64, anchor: String)?
        // Decodes the model at `model` alone; only contacts need the keys.
        func decode<Model: ReadModel>(
          _ model: WritableKeyPath<ReadModels, Model>, keys: (any CheckpointKeys)? = nil
        ) throws(ProjectionsError) {
          let decoded = try ReadModelCheckpoint.decode(Model.self, from: bytes, keys: keys)
          models[keyPath: model] = decoded.model
          header = (decoded.sequence, decoded.anchor)
        }
        for name in names {
          switch name {
          case ContactList.name: try decode(\.contacts, keys: LogCheckpointKeys(openLog))
          case ZipCodeList.name: try decode(\.zipCodes)
          case ObservationList.name: try decode(\.observations)
          case AnimalCatalog.name: try decode(\.animals)
          case LocationList.name: try decode(\.locations)
          default: continue
          }
        }
        (sequence, anchorText) = header ?? (-1, "")
      } else {
        let checkpoint = try ReadModelCheckpoint(
          decoding: bytes, keys: LogCheckpointKeys(openLog))
        models = checkpoint.models
        sequence = checkpoint.sequence
        anchorText = checkpoint.anchor
      }
    } catch {
      throw reject("\(error)")
    }
    guard sequence >= 0 else { throw reject("no model was asked for") }
    guard sequence == entry.sequence else {
      throw reject("its name says seq \(entry.sequence) but it holds seq \(sequence)")
    }
    guard let anchor = Anchor(text: anchorText) else {
      throw reject("it was not written by this engine's checkpoint store")
    }
    if checkingLog { try check(anchor, path: entry.path) }
    return Loaded(models: models, sequence: sequence, anchor: anchor)
  }

  /// A file's bytes (`FileDescriptor.contents(ofFileAt:)`), `nil` when it cannot be read.
  static func contents(of path: String) -> [UInt8]? {
    try? FileDescriptor.contents(ofFileAt: path)
  }

  /// Reads the anchor's sample lines back from the log and compares them.
  /// The anchor of `entry`, read without decoding its models and checked against the log as
  /// a load checks it (sample lines where they were): what ties the log's prefix to a digest.
  /// - Throws: `Rejection` for a file that cannot be read or is damaged, or that no longer
  ///   matches the log.
  public func anchor(of entry: Entry) throws(Rejection) -> Anchor {
    func reject(_ reason: String) -> Rejection { Rejection(path: entry.path, reason: reason) }
    guard let data = FileManager.default.contents(atPath: entry.path) else {
      throw reject("it cannot be read")
    }
    let header: (sequence: Int64, anchor: String)
    do throws(ProjectionsError) {
      header = try ReadModelCheckpoint.header(of: Array(data))
    } catch {
      throw reject("\(error)")
    }
    guard header.sequence == entry.sequence else {
      throw reject("its name says seq \(entry.sequence) but it holds seq \(header.sequence)")
    }
    guard let anchor = Anchor(text: header.anchor) else {
      throw reject("it was not written by this engine's checkpoint store")
    }
    try check(anchor, path: entry.path)
    return anchor
  }

  func check(_ anchor: Anchor, path: String) throws(Rejection) {
    func reject(_ reason: String) -> Rejection { Rejection(path: path, reason: reason) }
    let file: FileDescriptor
    do {
      file = try openLog.openForReading()
    } catch {
      throw reject("the log cannot be opened: \(error)")
    }
    defer { file.close() }
    guard let status = try? file.status() else {
      throw reject("the log cannot be read")
    }
    let identity = LogFileIdentity(status)
    guard let bound = boundIdentity() else {
      throw reject(
        "its folder does not say which log file it was made for (a copied folder, or one older than that binding)"
      )
    }
    guard bound == identity else {
      throw reject(
        "it was made for another file (\(bound)), not this log (\(identity)): a copy of another log's checkpoints"
      )
    }
    guard status.size >= anchor.offset else {
      throw reject("the log is shorter than the \(anchor.offset) bytes it covered")
    }
    for sample in anchor.samples {
      guard let line = try? file.readFully(count: sample.length + 1, at: sample.offset),
        line.count == sample.length + 1, line.last == 0x0A, sample.length > 18
      else {
        throw reject("the line at byte \(sample.offset) is not where it was")
      }
      let stored = String(decoding: line[(sample.length - 10)..<(sample.length - 2)], as: UTF8.self)
      guard stored == sample.checksum else {
        throw reject(
          "the line at byte \(sample.offset) changed (checksum \(stored), was \(sample.checksum))")
      }
    }
  }

  /// Re-hashes the prefix a checkpoint covers and compares it with the digest it stored.
  /// - Returns: `nil` when it matches, else why not.
  public func verifyDigest(of entry: Entry) -> String? {
    verifyDigests(of: [entry])[0]
  }

  /// `verifyDigest` for each of `entries`, in one pass over the log: the prefixes are hashed
  /// once, in order of their ends, not each from the first byte (16 checkpoints of a log
  /// hashed it about eight times over).
  /// - Returns: for each entry, in order, `nil` when it matches, else why not.
  public func verifyDigests(of entries: [Entry]) -> [String?] {
    var problems = [String?](repeating: nil, count: entries.count)
    // Each checkpoint's stored digest, by where its prefix ends.
    var anchors: [(index: Int, anchor: Anchor)] = []
    for (index, entry) in entries.enumerated() {
      do {
        anchors.append(
          (index, try load(entry, models: [ContactList.name], checkingLog: false).anchor))
      } catch {
        problems[index] = error.reason
      }
    }
    guard !anchors.isEmpty else { return problems }
    anchors.sort { $0.anchor.offset < $1.anchor.offset }
    guard let file = try? openLog.openForReading() else {
      for (index, _) in anchors { problems[index] = "the log cannot be opened" }
      return problems
    }
    defer { file.close() }
    var hasher = SHA256()
    var offset: Int64 = 0
    let blockSize = 4 << 20
    for (index, anchor) in anchors {
      while offset < anchor.offset {
        let count = Int(min(Int64(blockSize), anchor.offset - offset))
        guard let block = try? file.readFully(count: count, at: offset), block.count == count
        else { break }
        hasher.update(block)
        offset += Int64(count)
      }
      guard offset == anchor.offset else {
        problems[index] = "the log could not be read at byte \(offset)"
        continue
      }
      let digest = hasher.finalize()
      if digest != anchor.sha256 {
        problems[index] =
          "the log's first \(anchor.offset) bytes hash to \(SHA256.hex(digest)), not \(SHA256.hex(anchor.sha256))"
      }
    }
    return problems
  }

  /// The multi-event write that the line ending at `end` of the log at `path` belongs to, when
  /// that write goes on past seq `sequence` (a checkpoint saved inside a write, say).
  static func write(
    endingAt end: Int64, of path: String, through sequence: Int64
  ) throws -> ClosedRange<Int64>? {
    let file = try OpenLog.named(path).openForReading()
    defer { file.close() }
    guard let start = try LineScanner.startsOfLastLines(file, count: 1, before: end).first else {
      return nil
    }
    let bytes = try file.readFully(count: Int(end - start), at: start)
    return try bytes.withUnsafeBufferPointer { buffer -> ClosedRange<Int64>? in
      guard let base = buffer.baseAddress, buffer.count > 1 else { return nil }
      do throws(LogLineCodec.Problem) {
        let line = try LogLineCodec.decode(
          base, length: buffer.count - 1, lineNumber: Int(sequence), offset: start)
        guard let batch = line.batch, batch.upperBound > sequence else { return nil }
        return batch
      } catch {
        throw EngineError.corruptLine(
          path: path, line: Int(sequence), offset: start, problem: error.message)
      }
    }
  }

  /// Deletes every checkpoint and the interval setting.
  public func removeAll() throws {
    if FileManager.default.fileExists(atPath: directory) {
      try PathOperations.removeTree(directory)
    }
  }
}

extension CheckpointStore.Anchor {
  /// Reads the stored text; `nil` when it is not an anchor this engine wrote.
  init?(text: String) {
    guard case .object(let object)? = try? JSONValue.parse(text),
      object["v"]?.int64Value == 1,
      let offset = object["offset"]?.int64Value,
      let sha256 = object["sha256"]?.stringValue.flatMap({ SHA256.bytes(fromHex: $0) }),
      let midstate = object["midstate"]?.stringValue.flatMap({ SHA256.bytes(fromHex: $0) }),
      let latest = object["latestAt"]?.stringValue.flatMap({ Timestamp.parseISO8601($0) }),
      let samples = object["samples"]?.arrayValue
    else { return nil }
    var parsed: [Sample] = []
    for sample in samples {
      guard let parts = sample.arrayValue, parts.count == 3, let start = parts[0].int64Value,
        let length = parts[1].int64Value, let checksum = parts[2].stringValue
      else { return nil }
      parsed.append(Sample(offset: start, length: Int(length), checksum: checksum))
    }
    self.init(
      offset: offset, sha256: sha256, midstate: midstate, latestTimestamp: latest,
      samples: parsed)
  }
}
