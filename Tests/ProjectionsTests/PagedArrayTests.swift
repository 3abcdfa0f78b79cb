import Testing

@testable import Projections

@Suite struct PagedArrayTests {
  /// 512 bytes: a page holds 128 of them, so a few hundred elements cross many pages.
  struct Wide: Equatable {
    var text: String
    var padding: (SIMD64<UInt8>, SIMD64<UInt8>, SIMD64<UInt8>, SIMD64<UInt8>) = (
      .zero, .zero, .zero, .zero
    )
    var tail: (SIMD64<UInt8>, SIMD64<UInt8>, SIMD64<UInt8>) = (.zero, .zero, .zero)
    var number: Int

    init(_ number: Int) {
      text = "element \(number), long enough to live on the heap"
      self.number = number
    }

    static func == (lhs: Self, rhs: Self) -> Bool {
      lhs.text == rhs.text && lhs.number == rhs.number
    }
  }

  @Test func pagesHoldAboutSixtyFourKibibytesAndAtLeastSixteenElements() {
    // The largest power of two whose elements fit in 64 KiB.
    let wide = PagedArray<Wide>().pageCapacity
    let stride = MemoryLayout<Wide>.stride
    #expect(wide.nonzeroBitCount == 1 && wide * stride <= 1 << 16 && 2 * wide * stride > 1 << 16)
    #expect(PagedArray<UInt8>().pageCapacity == 1 << 16)
    #expect(PagedArray<Int>().pageCapacity == 1 << 13)
    // 4 608 bytes: fewer than 16 would fit, and a page holds 16.
    #expect(PagedArray<InlineArray<9, SIMD64<UInt64>>>().pageCapacity == 16)
  }

  /// Appends, removals from the end, in-place changes and reads, across page edges back and
  /// forth, against an array.
  @Test func randomOperationsMatchAnArray() {
    let seed = TestRandom.seed(for: "PagedArrayTests", fallback: 0x9A6E5)
    var random = TestRandom(seed: seed)
    var paged = PagedArray<Wide>()
    var reference: [Wide] = []
    let pageCapacity = paged.pageCapacity
    for step in 0..<20_000 {
      // Grow to about six pages, then wander around page edges.
      let grow = step < 2_000 ? 3 : 1
      switch Int.random(in: 0..<(3 + grow), using: &random) {
      case 0 where !reference.isEmpty:
        #expect(paged.removeLast() == reference.removeLast(), "seed \(seed)")
      case 1 where !reference.isEmpty:
        let position = Int.random(in: 0..<reference.count, using: &random)
        paged[position].number += step
        paged[position].text += "+"
        reference[position].number += step
        reference[position].text += "+"
      case 2 where !reference.isEmpty:
        let position = Int.random(in: 0..<reference.count, using: &random)
        #expect(paged[position] == reference[position], "seed \(seed)")
      default:
        paged.append(Wide(step))
        reference.append(Wide(step))
      }
      #expect(paged.count == reference.count)
    }
    #expect(reference.count > pageCapacity)
    #expect((0..<paged.count).map { paged[$0] } == reference)
    // Emptied to nothing and filled again across the first page's edge.
    while paged.count > 0 { paged.removeLast() }
    #expect((0..<paged.count).map { paged[$0] }.isEmpty)
    for number in 0...pageCapacity { paged.append(Wide(number)) }
    #expect((0..<paged.count).map { paged[$0] } == (0...pageCapacity).map(Wide.init))
  }
}
