import Testing

@testable import Events

@Suite struct SecureRandomTests {
  @Test func fillsBuffersOfEveryShapeWithDifferentBytesEachTime() throws {
    try SecureRandom.fill(UnsafeMutableRawBufferPointer(start: nil, count: 0))
    let first = try SecureRandom.bytes(count: 64)
    let second = try SecureRandom.bytes(count: 64)
    #expect(first.count == 64)
    #expect(first != second)
    // Over a megabyte every byte value turns up (a stuck or short fill would not).
    let large = try SecureRandom.bytes(count: 1 << 20)
    #expect(Set(large).count == 256)
    #expect(large.suffix(1024) != [UInt8](repeating: 0, count: 1024))
  }
}
