import Events

extension RecordedEvent {
  /// The event's line exactly as the log holds it, with its checksum and `\n`.
  public var logLine: [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(data.count + 256)
    data.withUnsafeBytes { data in
      LogLineCodec.encode(
        sequence: sequence, id: id, stream: stream, version: version, type: type,
        schemaVersion: schemaVersion, timestamp: timestamp, batch: batch, metadata: metadata,
        data: data, into: &bytes)
    }
    return bytes
  }
}
