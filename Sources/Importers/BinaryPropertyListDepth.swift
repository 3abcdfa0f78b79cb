/// How deep the arrays and dictionaries of a binary property list (`bplist00`) nest, found by
/// following its object table without building any value; and whether it holds a set.
///
/// `PropertyListSerialization` builds nested values by recursion, so a list nested 100,000 deep
/// would overflow the stack; this check runs first, with an explicit stack, and lets only lists
/// within `PropertyListReader.maximumDepth` through. Objects shared by several containers are
/// measured once, so the check is linear in the list's size.
enum BinaryPropertyListDepth {
  /// What the check found.
  enum Outcome: Equatable {
    /// Nothing nests deeper than the limit.
    case withinLimit
    /// A chain of containers deeper than the limit (or a container that holds itself).
    case tooDeep
    /// The trailer, offset table or a container points outside the file.
    case malformed(String)
    /// A set: no source of the five apps holds one, and Foundation's reader crashes on some
    /// (a fuzzing finding); sets are refused before it runs.
    case holdsASet(object: Int)
  }

  /// Checks `bytes`, a whole binary property list, against `limit` levels of nesting.
  static func check(_ bytes: [UInt8], limit: Int) -> Outcome {
    guard bytes.count >= 8 + 32 else { return .malformed("it is shorter than its trailer") }
    let trailer = bytes.count - 32
    let offsetSize = Int(bytes[trailer + 6])
    let referenceSize = Int(bytes[trailer + 7])
    guard (1...8).contains(offsetSize), (1...8).contains(referenceSize),
      let objectCount = integer(bytes, at: trailer + 8, size: 8),
      let top = integer(bytes, at: trailer + 16, size: 8),
      let tableOffset = integer(bytes, at: trailer + 24, size: 8),
      objectCount > 0, objectCount <= bytes.count, top < objectCount,
      tableOffset <= trailer, objectCount <= (trailer - tableOffset) / offsetSize
    else { return .malformed("its trailer is inconsistent") }

    /// The offset of object `index`'s marker byte.
    func offset(of index: Int) -> Int? {
      guard let value = integer(bytes, at: tableOffset + index * offsetSize, size: offsetSize),
        value >= 8, value < tableOffset
      else { return nil }
      return value
    }
    /// Where a container's references start and how many it holds; `nil` for a scalar.
    func references(of index: Int) -> (start: Int, count: Int)? {
      guard let start = offset(of: index) else { return nil }
      let marker = bytes[start]
      let kind = marker >> 4
      guard kind == 0xA || kind == 0xC || kind == 0xD else { return nil }
      var count = Int(marker & 0x0F)
      var first = start + 1
      if count == 0x0F {
        // The count follows as an integer object: marker 0x1n, then 2^n big-endian bytes.
        guard first < tableOffset, bytes[first] >> 4 == 0x1, bytes[first] & 0x0F <= 3 else {
          return (start, Int.max)
        }
        let size = 1 << Int(bytes[first] & 0x0F)
        guard let value = integer(bytes, at: first + 1, size: size) else { return (start, .max) }
        count = value
        first += 1 + size
      }
      // A dictionary holds its keys' references, then its values'.
      return (first, kind == 0xD ? count.multipliedReportingOverflow(by: 2).partialValue : count)
    }

    // Heights in containers of the objects measured so far; -1: not yet, -2: on the path.
    var height = [Int32](repeating: -1, count: objectCount)
    var path: [(object: Int, next: Int, tallest: Int32)] = []
    /// Starts measuring `object`: a scalar at once, a container by walking into it.
    func enter(_ object: Int) -> Outcome? {
      guard let start = offset(of: object) else {
        return .malformed("object \(object) is misplaced")
      }
      if bytes[start] >> 4 == 0xC { return .holdsASet(object: object) }
      guard let (start, count) = references(of: object) else {
        height[object] = 0
        return nil
      }
      guard count >= 0, count <= (tableOffset - start) / referenceSize else {
        return .malformed("object \(object) holds more references than fit")
      }
      guard path.count < limit else { return .tooDeep }
      height[object] = -2
      path.append((object, 0, 0))
      return nil
    }

    if let outcome = enter(top) { return outcome }
    while let frame = path.last {
      let (start, count) = references(of: frame.object) ?? (0, 0)
      guard frame.next < count else {
        path.removeLast()
        let measured = frame.tallest + 1
        height[frame.object] = measured
        if !path.isEmpty {
          path[path.count - 1].tallest = max(path[path.count - 1].tallest, measured)
        }
        continue
      }
      path[path.count - 1].next += 1
      guard
        let child = integer(bytes, at: start + frame.next * referenceSize, size: referenceSize),
        child < objectCount
      else { return .malformed("object \(frame.object) refers past the last object") }
      switch height[child] {
      case -2:
        // A container that (indirectly) holds itself is infinitely deep.
        return .tooDeep
      case -1:
        if let outcome = enter(child) { return outcome }
      default:
        // Measured already, through another container.
        guard path.count + Int(height[child]) <= limit else { return .tooDeep }
        path[path.count - 1].tallest = max(path[path.count - 1].tallest, height[child])
      }
    }
    return .withinLimit
  }

  /// The big-endian unsigned integer of `size` bytes at `offset`; `nil` when it does not fit in
  /// the file or in an `Int`.
  private static func integer(_ bytes: [UInt8], at offset: Int, size: Int) -> Int? {
    guard offset >= 0, size <= bytes.count, offset <= bytes.count - size else { return nil }
    var value: UInt64 = 0
    for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
    return value <= UInt64(Int.max) ? Int(value) : nil
  }
}
