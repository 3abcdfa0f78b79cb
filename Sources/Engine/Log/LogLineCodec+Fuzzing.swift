import Events

/// The log line codec as the fuzz targets reach it. Fuzz/ is a package of its own, so it sees
/// neither `LogLineCodec` (internal) nor `EventLine` (package, as it holds a pointer into a
/// buffer); it imports this with `@_spi(Fuzzing) import Engine`, and every call goes straight to
/// the codec every reader and writer uses.
@_spi(Fuzzing)
public enum FuzzingLineCodec {
  /// The length of the checksum member that ends every line, `,"crc":"xxxxxxxx"}`.
  public static let checksumSuffixLength = LogLineCodec.suffixLength

  /// The event on `line` (without its `\n`), or the decoder's reason for refusing it.
  public static func decode(_ line: [UInt8]) -> Result<RecordedEvent, any Error> {
    line.withUnsafeBufferPointer { buffer in
      // An empty array may have no address; a line that short is refused either way.
      guard let base = buffer.baseAddress else {
        return .failure(LogLineCodec.Problem(message: "empty line"))
      }
      do {
        return .success(
          try LogLineCodec.decode(base, length: buffer.count, lineNumber: 1, offset: 0)
            .recordedEvent())
      } catch {
        return .failure(error)
      }
    }
  }

  /// The line the writer makes for `event`, with its `\n`.
  public static func encode(_ event: RecordedEvent) -> [UInt8] {
    var line: [UInt8] = []
    event.data.withUnsafeBytes { data in
      LogLineCodec.encode(
        sequence: event.sequence, id: event.id, stream: event.stream, version: event.version,
        type: event.type, schemaVersion: event.schemaVersion, timestamp: event.timestamp,
        batch: event.batch, metadata: event.metadata, data: data, into: &line)
    }
    return line
  }

  /// Appends `value` as the 8 lowercase hex digits a checksum member holds.
  public static func appendHex(_ value: UInt32, to bytes: inout [UInt8]) {
    LogLineCodec.appendHex(value, to: &bytes)
  }
}
