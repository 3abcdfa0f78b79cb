import Events

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

extension LogIndexFile {
  /// Saves `index` (its saved part merged with what was read or appended since) as the index of
  /// the log at `logPath`: written to a temporary file beside it and renamed into place.
  ///
  /// Not synced: the file is a cache that is checked on every open and page by page as it is
  /// read, so a crash that loses some of it costs a re-read of the log, never a wrong answer.
  /// - Throws: `LogIndexFile.Damaged` when the saved part fails a check while being copied,
  ///   `EngineError.io` when writing fails (the temporary file is removed).
  static func save(_ index: LogIndex, forLog logPath: String, log: FileDescriptor) throws {
    let base = index.base
    // The streams added since the saved part, sorted by their bytes, each with its position in
    // the saved directory (or where it would go).
    let recent = index.streams.entries.map { entry in
      (name: Array(entry.name.utf8), offsets: entry.offsets)
    }.sorted { compareBytes($0.name, $1.name) < 0 }
    var merged: [MergedStream] = []
    merged.reserveCapacity((base?.streamCount ?? 0) + recent.count)
    var basePosition = 0
    let baseCount = base?.streamCount ?? 0
    for (recentIndex, stream) in recent.enumerated() {
      let (position, found) =
        try base.map { base in
          try stream.name.withUnsafeBytes { try base.search($0) }
        } ?? (0, false)
      while basePosition < position {
        merged.append(.saved(basePosition))
        basePosition += 1
      }
      if found {
        merged.append(.both(basePosition, recentIndex))
        basePosition += 1
      } else {
        merged.append(.recent(recentIndex))
      }
    }
    while basePosition < baseCount {
      merged.append(.saved(basePosition))
      basePosition += 1
    }

    // Counts first: the header and the directory say where everything is.
    var namesLength = 0
    var eventCount = 0
    var directory: [(nameStart: Int, nameLength: Int, firstOffset: Int, count: Int)] = []
    directory.reserveCapacity(merged.count)
    for item in merged {
      let (nameLength, count) = try item.sizes(base: base, recent: recent)
      directory.append((namesLength, nameLength, eventCount, count))
      namesLength += nameLength
      eventCount += count
    }
    guard eventCount == (base?.eventCount ?? 0) + index.eventOffsets.count else {
      throw Damaged(
        problem:
          "its streams hold \(eventCount) events but its ids \((base?.eventCount ?? 0) + index.eventOffsets.count)"
      )
    }
    let prefix = try log.readFully(count: Int(min(index.committedEnd, prefixLimit)), at: 0)
    let lastLine = try log.readFully(
      count: Int(index.committedEnd - index.lastLineStart), at: index.lastLineStart)
    let header = Header(
      coveredEnd: index.committedEnd, lastSequence: index.lastSequence,
      streamCount: merged.count, eventCount: eventCount, namesLength: namesLength,
      prefixChecksum: prefix.withUnsafeBytes { CRC32C.checksum($0) },
      lastLineChecksum: lastLine.withUnsafeBytes { CRC32C.checksum($0) },
      lastLineStart: index.lastLineStart, log: try LogFileIdentity(of: log))

    let path = path(forLog: logPath)
    let temporary = "\(path).tmp-\(getpid())"
    PathOperations.unlink(temporary)
    let file = try FileDescriptor.open(temporary, .appendCreating)
    var writer = PagedWriter(file: file)
    do {
      try header.bytes.withUnsafeBytes { try writer.append($0) }
      for entry in directory {
        try writer.append(UInt64(entry.nameStart), UInt64(entry.nameLength))
        try writer.append(UInt64(entry.firstOffset), UInt64(entry.count))
      }
      for item in merged {
        try item.withName(base: base, recent: recent) { try writer.append($0) }
      }
      try writer.pad(toMultipleOf: 8)
      for item in merged {
        if let saved = item.savedPosition, let base {
          try base.withSequentialBytes(base.lineOffsetRange(of: try base.stream(at: saved))) {
            try writer.append($0)
          }
        }
        if let recentIndex = item.recentIndex {
          #if _endian(little)
            // The file's words are little-endian, as the offsets are in memory: one copy.
            try recent[recentIndex].offsets.withUnsafeBytes { try writer.append($0) }
          #else
            for offset in recent[recentIndex].offsets {
              try writer.append(UInt64(bitPattern: offset))
            }
          #endif
        }
      }
      // Ids: the saved entries (sorted) with the recent ones (sorted) merged in, in one pass.
      let recentIDs = Self.sortedByID(index.eventOffsets)
      var next = 0
      func appendRecent(
        below limit: EventID?, next: inout Int, to writer: inout PagedWriter
      ) throws {
        while next < recentIDs.count, limit.map({ recentIDs[next].key < $0 }) ?? true {
          let (id, offset) = recentIDs[next]
          try writer.append(id.high, id.low, UInt64(bitPattern: offset))
          next += 1
        }
      }
      if let base {
        let perBlock = 43_690  // about 1 MiB of entries
        var position = 0
        while position < base.eventCount {
          let count = min(perBlock, base.eventCount - position)
          try base.withSequentialBytes(base.idEntryRange(position..<position + count)) { entries in
            var runStart = 0
            for entry in 0..<count {
              let at = entry * idEntrySize
              let id = EventID(
                high: UInt64(
                  littleEndian: entries.loadUnaligned(fromByteOffset: at, as: UInt64.self)),
                low: UInt64(
                  littleEndian: entries.loadUnaligned(fromByteOffset: at + 8, as: UInt64.self)))
              guard next < recentIDs.count, recentIDs[next].key < id else { continue }
              // Recent ids go before this entry: the saved run before it first.
              try writer.append(UnsafeRawBufferPointer(rebasing: entries[runStart..<at]))
              runStart = at
              try appendRecent(below: id, next: &next, to: &writer)
            }
            try writer.append(UnsafeRawBufferPointer(rebasing: entries[runStart...]))
          }
          position += count
        }
      }
      try appendRecent(below: nil, next: &next, to: &writer)
      try writer.finish()
      file.close()
      guard PathOperations.rename(temporary, path) == 0 else {
        throw EngineError.io(path: path, operation: "rename", code: errno)
      }
    } catch {
      file.close()
      PathOperations.unlink(temporary)
      throw error
    }
  }

  /// Orders byte arrays as `compare` does.
  static func compareBytes(_ left: [UInt8], _ right: [UInt8]) -> Int {
    left.withUnsafeBytes { left in right.withUnsafeBytes { right in compare(left, right) } }
  }

  /// One stream of a merged index: from the saved part, from what came since, or both.
  enum MergedStream {
    case saved(Int)
    case recent(Int)
    case both(Int, Int)

    var savedPosition: Int? {
      switch self {
      case .saved(let position), .both(let position, _): position
      case .recent: nil
      }
    }

    var recentIndex: Int? {
      switch self {
      case .recent(let index), .both(_, let index): index
      case .saved: nil
      }
    }

    func sizes(
      base: LogIndexFile?, recent: [(name: [UInt8], offsets: [Int64])]
    ) throws -> (nameLength: Int, count: Int) {
      var nameLength = 0
      var count = 0
      if let savedPosition, let base {
        let stream = try base.stream(at: savedPosition)
        nameLength = stream.name.count
        count += stream.count
      }
      if let recentIndex {
        nameLength = recent[recentIndex].name.count
        count += recent[recentIndex].offsets.count
      }
      return (nameLength, count)
    }

    func withName(
      base: LogIndexFile?, recent: [(name: [UInt8], offsets: [Int64])],
      _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
      if let recentIndex {
        try recent[recentIndex].name.withUnsafeBytes(body)
      } else if let savedPosition, let base {
        try base.stream(at: savedPosition).name.withUnsafeBytes(body)
      }
    }
  }
}

extension LogIndexFile {
  /// `offsets` sorted by id. Above a few thousand ids, one pass of a radix sort by the ids'
  /// top 16 bits into 65,536 buckets, then each bucket sorted on its own: by insertion while it
  /// is small (ids are random or digests, so a bucket holds a few: about 15 at a million), by
  /// the standard sort when it is not (ids an input chose to share their top bits). Four
  /// least-significant-digit passes before: twice the memory traffic, about 300 instructions
  /// an id of an import's 4,300.
  static func sortedByID(_ offsets: EventIDTable<Int64>) -> [(key: EventID, value: Int64)] {
    let count = offsets.count
    guard count > 4096 else {
      var items: [(key: EventID, value: Int64)] = []
      items.reserveCapacity(count)
      for position in offsets.ids.indices {
        items.append((offsets.ids[position], offsets.values[position]))
      }
      return items.sorted { $0.key < $1.key }
    }
    @inline(__always) func bucket(_ id: EventID) -> Int { Int(truncatingIfNeeded: id.high >> 48) }
    // Where each bucket starts, and past the last one.
    var starts = [Int](repeating: 0, count: (1 << 16) + 1)
    for id in offsets.ids { starts[bucket(id) + 1] += 1 }
    for index in 1..<starts.count { starts[index] += starts[index - 1] }
    var next = starts
    var items = [(key: EventID, value: Int64)](unsafeUninitializedCapacity: count) {
      buffer, initialized in
      guard let base = buffer.baseAddress else { return }
      offsets.ids.withUnsafeBufferPointer { ids in
        offsets.values.withUnsafeBufferPointer { values in
          for position in 0..<count {
            let id = ids[position]
            let target = bucket(id)
            (base + next[target]).initialize(to: (id, values[position]))
            next[target] += 1
          }
        }
      }
      initialized = count
    }
    items.withUnsafeMutableBufferPointer { items in
      for index in 0..<(1 << 16) {
        let start = starts[index]
        let end = starts[index + 1]
        guard end - start > 1 else { continue }
        if end - start > 32 {
          var large = UnsafeMutableBufferPointer(rebasing: items[start..<end])
          large.sort { $0.key < $1.key }
          continue
        }
        for position in (start + 1)..<end {
          let item = items[position]
          var hole = position
          while hole > start, item.key < items[hole - 1].key {
            items[hole] = items[hole - 1]
            hole -= 1
          }
          items[hole] = item
        }
      }
    }
    return items
  }
}

/// Writes a file in 1 MiB chunks, keeping a CRC-32C of every 4 KiB page; `finish` appends the
/// table of page checksums.
///
/// The chunk is a buffer of fixed size that appends copy into (a word or an id entry at a time,
/// millions of times a save), not an array grown by `append(contentsOf:)`.
struct PagedWriter {
  let file: FileDescriptor
  private var buffer = [UInt8](repeating: 0, count: 1 << 20)
  private var filled = 0
  private var pageChecksums: [UInt32] = []
  private var pageChecksum: UInt32 = 0
  private var pageFill = 0
  private(set) var count = 0

  init(file: FileDescriptor) {
    self.file = file
  }

  /// Appends bytes; their pages' checksums are computed when the buffer is written.
  mutating func append(_ bytes: UnsafeRawBufferPointer) throws {
    guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
    if filled + bytes.count > buffer.count {
      try flush()
      if bytes.count > buffer.count {
        // More than the buffer holds: straight to the file, after what was buffered.
        checksumPages(bytes)
        try file.writeAll(bytes)
        count += bytes.count
        return
      }
    }
    let at = filled
    buffer.withUnsafeMutableBytes { target in
      target.baseAddress?.advanced(by: at).copyMemory(from: source, byteCount: bytes.count)
    }
    filled += bytes.count
    count += bytes.count
  }

  /// Folds `bytes`, the next bytes of the data, into the page checksums.
  private mutating func checksumPages(_ bytes: UnsafeRawBufferPointer) {
    var rest = bytes
    while !rest.isEmpty {
      let take = min(rest.count, LogIndexFile.pageSize - pageFill)
      pageChecksum = CRC32C.checksum(
        UnsafeRawBufferPointer(rebasing: rest[..<take]), continuing: pageChecksum)
      pageFill += take
      if pageFill == LogIndexFile.pageSize {
        pageChecksums.append(pageChecksum)
        pageChecksum = 0
        pageFill = 0
      }
      rest = UnsafeRawBufferPointer(rebasing: rest[take...])
    }
  }

  /// Appends three words (one id entry) at once.
  mutating func append(_ first: UInt64, _ second: UInt64, _ third: UInt64) throws {
    try withUnsafeBytes(of: (first.littleEndian, second.littleEndian, third.littleEndian)) {
      try append($0)
    }
  }

  /// Appends two words at once.
  mutating func append(_ first: UInt64, _ second: UInt64) throws {
    try withUnsafeBytes(of: (first.littleEndian, second.littleEndian)) { try append($0) }
  }

  mutating func append(_ word: UInt64) throws {
    try withUnsafeBytes(of: word.littleEndian) { try append($0) }
  }

  mutating func pad(toMultipleOf alignment: Int) throws {
    let padding = (alignment - count % alignment) % alignment
    if padding > 0 {
      try [UInt8](repeating: 0, count: padding).withUnsafeBytes { try append($0) }
    }
  }

  /// Writes the buffered data, its page checksums folded in first.
  private mutating func flush() throws {
    let filled = filled
    try buffer.withUnsafeBytes { all in
      let bytes = UnsafeRawBufferPointer(rebasing: all[0..<filled])
      checksumPages(bytes)
      try file.writeAll(bytes)
    }
    self.filled = 0
  }

  /// Closes the last page and writes the page checksums after the data.
  mutating func finish() throws {
    try flush()
    if pageFill > 0 { pageChecksums.append(pageChecksum) }
    pageFill = 0
    var table: [UInt8] = []
    table.reserveCapacity(4 * pageChecksums.count)
    for checksum in pageChecksums {
      withUnsafeBytes(of: checksum.littleEndian) { table.append(contentsOf: $0) }
    }
    try table.withUnsafeBytes { try file.writeAll($0) }
  }
}
