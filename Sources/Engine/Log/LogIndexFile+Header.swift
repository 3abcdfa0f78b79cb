import Events

extension LogIndexFile {
  /// The header's fields.
  struct Header {
    var coveredEnd: Int64
    var lastSequence: Int64
    var streamCount: Int
    var eventCount: Int
    var namesLength: Int
    var prefixChecksum: UInt32
    var lastLineChecksum: UInt32
    var lastLineStart: Int64
    /// The log file the index was made from.
    var log: LogFileIdentity

    /// Where each section starts, from the counts.
    struct Layout {
      var directoryStart: Int
      var namesStart: Int
      var offsetsStart: Int
      var idsStart: Int
      var pageTableStart: Int
      var pageCount: Int
      var fileSize: Int
    }

    var layout: Layout {
      let directoryStart = LogIndexFile.headerSize
      let namesStart = directoryStart + streamCount * LogIndexFile.directoryEntrySize
      let offsetsStart = (namesStart + namesLength + 7) & ~7
      let idsStart = offsetsStart + 8 * eventCount
      let pageTableStart = idsStart + eventCount * LogIndexFile.idEntrySize
      let pageCount = (pageTableStart + LogIndexFile.pageSize - 1) / LogIndexFile.pageSize
      return Layout(
        directoryStart: directoryStart, namesStart: namesStart, offsetsStart: offsetsStart,
        idsStart: idsStart, pageTableStart: pageTableStart, pageCount: pageCount,
        fileSize: pageTableStart + 4 * pageCount)
    }

    /// The header's bytes: 10 words, zeros, and its own CRC-32C in the last four bytes.
    var bytes: [UInt8] {
      var bytes: [UInt8] = []
      bytes.reserveCapacity(LogIndexFile.headerSize)
      let words: [UInt64] = [
        LogIndexFile.magic, UInt64(bitPattern: coveredEnd), UInt64(bitPattern: lastSequence),
        UInt64(streamCount), UInt64(eventCount), UInt64(namesLength),
        UInt64(prefixChecksum) | UInt64(lastLineChecksum) << 32,
        UInt64(bitPattern: lastLineStart), log.device, log.inode,
      ]
      for word in words { withUnsafeBytes(of: word.littleEndian) { bytes += $0 } }
      bytes += repeatElement(0, count: LogIndexFile.headerSize - 4 - bytes.count)
      let checksum = bytes.withUnsafeBytes { CRC32C.checksum($0) }
      withUnsafeBytes(of: checksum.littleEndian) { bytes += $0 }
      return bytes
    }

    /// The fields, unchecked.
    static func fields(of bytes: UnsafeRawBufferPointer) -> Header {
      func word(_ index: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self))
      }
      return Header(
        coveredEnd: Int64(bitPattern: word(1)), lastSequence: Int64(bitPattern: word(2)),
        streamCount: Int(truncatingIfNeeded: word(3)), eventCount: Int(truncatingIfNeeded: word(4)),
        namesLength: Int(truncatingIfNeeded: word(5)),
        prefixChecksum: UInt32(truncatingIfNeeded: word(6)),
        lastLineChecksum: UInt32(truncatingIfNeeded: word(6) >> 32),
        lastLineStart: Int64(bitPattern: word(7)),
        log: LogFileIdentity(device: word(8), inode: word(9)))
    }

    /// The header in `bytes`, checked: magic, checksum, counts that fit a file of `fileSize`.
    static func read(_ bytes: UnsafeRawBufferPointer, fileSize: Int) -> Result<Header, Damaged> {
      let magic = UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))
      guard magic == LogIndexFile.magic else {
        return .failure(Damaged(problem: "it is not an index file of this version"))
      }
      let stored = UInt32(
        littleEndian: bytes.loadUnaligned(
          fromByteOffset: LogIndexFile.headerSize - 4, as: UInt32.self))
      let checksum = CRC32C.checksum(
        UnsafeRawBufferPointer(rebasing: bytes[..<(LogIndexFile.headerSize - 4)]))
      guard stored == checksum else {
        return .failure(Damaged(problem: "its header fails its checksum"))
      }
      let header = fields(of: bytes)
      // Counts so large that the layout would overflow cannot come from a file this size.
      let limit = fileSize
      guard header.streamCount >= 0, header.eventCount >= 0, header.namesLength >= 0,
        header.streamCount <= limit / LogIndexFile.directoryEntrySize,
        header.eventCount <= limit / LogIndexFile.idEntrySize, header.namesLength <= limit,
        header.coveredEnd >= 0, header.lastSequence >= 0
      else {
        return .failure(Damaged(problem: "its counts do not fit its \(fileSize) bytes"))
      }
      guard header.layout.fileSize == fileSize else {
        return .failure(
          Damaged(
            problem:
              "it is \(fileSize) bytes, but its counts make \(header.layout.fileSize) (cut short?)"
          ))
      }
      return .success(header)
    }
  }
}
