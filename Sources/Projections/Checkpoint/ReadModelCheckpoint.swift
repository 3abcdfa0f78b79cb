import Dispatch
@_spi(Tables) import Events

/// The state of every read model at a position in the log, as bytes for a checkpoint file.
///
/// Layout (every integer little-endian, see ``BinaryWriter``):
///
/// | bytes | what |
/// |---|---|
/// | 4 | magic `RMCK` |
/// | 2 | envelope version (`UInt16`, 1) |
/// | 8 | `sequence` (`Int64`): the `seq` of the last event folded in, 0 for none |
/// | varint + n | `anchor`, a string the engine chooses (e.g. the id of the event at `sequence`, to check the log still holds it) |
/// | varint | number of models |
/// | per model | name (string), checkpoint version (varint), payload length (`UInt64`), payload (the model's `write(to:)`) |
/// | 4 | CRC-32C (`UInt32`) of every byte before it |
///
/// The checksum is checked before anything is decoded, so any damaged byte is reported as such;
/// each model's payload is then decoded with every read checked. A model whose version differs
/// from the code's is refused: checkpoints are caches, rebuilt from the log.
public struct ReadModelCheckpoint: Sendable, Equatable {
  /// The models' state.
  public var models: ReadModels
  /// The `seq` of the last event folded into `models` (0 for none).
  public var sequence: Int64
  /// Whatever the engine stores to tie the checkpoint to its log.
  public var anchor: String

  /// The checkpoint of `models` after the event at `sequence`.
  public init(models: ReadModels, sequence: Int64, anchor: String = "") {
    self.models = models
    self.sequence = sequence
    self.anchor = anchor
  }

  static let magic: [UInt8] = Array("RMCK".utf8)
  static let envelopeVersion: UInt16 = 1

  /// The checkpoint's bytes, contacts' personal data sealed with `keys` (see
  /// ``CheckpointKeys``; without keys, data that came from sealed events is withheld, and a
  /// checkpoint that withholds any is not used).
  public func encoded(keys: (any CheckpointKeys)? = nil) -> [UInt8] {
    var writer = BinaryWriter(capacity: 1 << 16)
    writer.keys = keys
    writer.writeBytes(Self.magic)
    writer.writeInteger(Self.envelopeVersion)
    writer.writeInteger(sequence)
    writer.writeString(anchor)
    let models = models.models
    writer.writeCount(models.count)
    for model in models {
      let type = type(of: model)
      writer.writeString(type.name)
      writer.writeCount(type.checkpointVersion)
      // The payload goes straight into the file's buffer; its length is filled in after.
      let lengthOffset = writer.count
      writer.writeInteger(UInt64(0))
      model.write(to: &writer)
      writer.overwriteInteger(UInt64(writer.count - lengthOffset - 8), at: lengthOffset)
    }
    let checksum = writer.bytes.withUnsafeBytes { CRC32C.checksum($0) }
    writer.writeInteger(checksum)
    return writer.bytes
  }

  /// Reads a checkpoint written by `encoded(keys:)`, contacts' sealed records opened (when
  /// shown) with `keys`.
  /// - Throws: `ProjectionsError` when the bytes are damaged, truncated, of another version, or
  ///   lack a model.
  public init(
    decoding bytes: [UInt8], keys: (any CheckpointKeys)? = nil
  ) throws(ProjectionsError) {
    var sections = try Self.sections(of: bytes)
    sections.keys = keys
    var models = ReadModels()
    if bytes.count >= Self.parallelDecodingThreshold {
      // The contacts, usually the largest model, decode on a second core meanwhile.
      let contacts = Self.decodeInBackground(ContactList.self, from: sections)
      models.zipCodes = try sections.decode(ZipCodeList.self)
      models.observations = try sections.decode(ObservationList.self)
      models.animals = try sections.decode(AnimalCatalog.self)
      models.locations = try sections.decode(LocationList.self)
      models.contacts = try contacts.wait(
        orElse: .modelNotInCheckpoint(name: ContactList.name, available: sections.names)
      ).get()
      self.init(models: models, sequence: sections.sequence, anchor: sections.anchor)
      return
    }
    models.contacts = try sections.decode(ContactList.self)
    models.zipCodes = try sections.decode(ZipCodeList.self)
    models.observations = try sections.decode(ObservationList.self)
    models.animals = try sections.decode(AnimalCatalog.self)
    models.locations = try sections.decode(LocationList.self)
    self.init(models: models, sequence: sections.sequence, anchor: sections.anchor)
  }

  /// Checkpoints at least this large decode two models at a time.
  static let parallelDecodingThreshold = 256 << 10

  /// Decodes one model on a background queue.
  static func decodeInBackground<Model: ReadModel>(
    _ type: Model.Type, from sections: Sections
  ) -> PendingResult<Model, ProjectionsError> {
    let pending = PendingResult<Model, ProjectionsError>()
    DispatchQueue.global().async {
      var copy = sections
      pending.fill(Result { () throws(ProjectionsError) in try copy.decode(type) })
    }
    return pending
  }

  /// Reads one model from a checkpoint, skipping the others' bytes.
  /// - Returns: the model, and the checkpoint's `sequence` and `anchor`.
  /// - Throws: as `init(decoding:)`.
  public static func decode<Model: ReadModel>(
    _ type: Model.Type, from bytes: [UInt8], keys: (any CheckpointKeys)? = nil
  ) throws(ProjectionsError) -> (model: Model, sequence: Int64, anchor: String) {
    var sections = try sections(of: bytes)
    sections.keys = keys
    return (try sections.decode(type), sections.sequence, sections.anchor)
  }

  /// The envelope of a checkpoint: its header and where each model's payload is.
  struct Sections: Sendable {
    var sequence: Int64
    var anchor: String
    /// By model name: version and payload range.
    var payloads: [String: (version: Int, range: Range<Int>)]
    var names: [String]
    let bytes: [UInt8]
    /// The keys that open contacts' sealed records.
    var keys: (any CheckpointKeys)?

    mutating func decode<Model: ReadModel>(_ type: Model.Type) throws(ProjectionsError) -> Model {
      guard let payload = payloads[type.name] else {
        throw .modelNotInCheckpoint(name: type.name, available: names)
      }
      guard payload.version == type.checkpointVersion else {
        throw .unsupportedCheckpointVersion(
          model: type.name, expected: type.checkpointVersion, found: payload.version)
      }
      var reader = BinaryReader(bytes, range: payload.range)
      reader.keys = keys
      let model = try Model(from: &reader)
      try reader.expectEnd("'\(type.name)' state")
      return model
    }
  }

  /// The checkpoint's `sequence` and `anchor`, checksum and envelope checked, without decoding
  /// a model.
  public static func header(
    of bytes: [UInt8]
  ) throws(ProjectionsError) -> (sequence: Int64, anchor: String) {
    let sections = try sections(of: bytes)
    return (sections.sequence, sections.anchor)
  }

  static func sections(of bytes: [UInt8]) throws(ProjectionsError) -> Sections {
    let minimumSize = 4 + 2 + 8 + 1 + 1 + 4
    guard bytes.count >= minimumSize else {
      throw .truncatedCheckpoint(
        what: "a checkpoint", offset: 0, needed: minimumSize, available: bytes.count)
    }
    guard bytes.prefix(4).elementsEqual(magic) else {
      throw .invalidCheckpoint(
        what: "the magic number", offset: 0, expected: "'RMCK'",
        found: bytes.prefix(4).map { String($0, radix: 16) }.joined(separator: " "))
    }
    let body = bytes.count - 4
    let computed = bytes.withUnsafeBytes {
      CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<body]))
    }
    var trailer = BinaryReader(bytes, range: body..<bytes.count)
    let stored = try trailer.readInteger(UInt32.self, "the checksum")
    var reader = BinaryReader(bytes, range: 0..<body)
    guard stored == computed else {
      throw .checkpointChecksumMismatch(stored: stored, computed: computed)
    }
    _ = try reader.readBytes(count: 4, "the magic number")
    let version = try reader.readInteger(UInt16.self, "the envelope version")
    guard version == envelopeVersion else {
      throw .unsupportedCheckpointVersion(
        model: "checkpoint", expected: Int(envelopeVersion), found: Int(version))
    }
    let sequence = try reader.readInteger(Int64.self, "the sequence number")
    let anchor = try reader.readString("the anchor")
    let count = try reader.readCount("the number of models", minimumSize: 10)
    var payloads: [String: (version: Int, range: Range<Int>)] = [:]
    var names: [String] = []
    for _ in 0..<count {
      let nameOffset = reader.offset
      let name = try reader.readString("a model name")
      let modelVersion = try reader.readVarint("a model version")
      let lengthOffset = reader.offset
      let length = try reader.readInteger(UInt64.self, "a model's length")
      guard length <= UInt64(reader.remainingCount) else {
        throw .truncatedCheckpoint(
          what: "model '\(name)'", offset: lengthOffset, needed: Int(clamping: length),
          available: reader.remainingCount)
      }
      let start = reader.offset
      _ = try reader.readBytes(count: Int(length), "a model's payload")
      guard payloads[name] == nil else {
        throw .invalidCheckpoint(
          what: "a model name", offset: nameOffset, expected: "each model once",
          found: "'\(name)' again")
      }
      payloads[name] = (Int(clamping: modelVersion), start..<start + Int(length))
      names.append(name)
    }
    try reader.expectEnd("the checkpoint's models")
    return Sections(
      sequence: sequence, anchor: anchor, payloads: payloads, names: names, bytes: bytes)
  }
}
