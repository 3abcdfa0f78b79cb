import Testing

@testable import replay

@Suite struct TextWrappingTests {
  @Test func breaksAtTheLastSpaceThatLeavesTheLastColumnFree() {
    // 10 columns: "aaaa bbbb" is 9 characters and fits; a 10-character line never does.
    #expect(TextWrapping.wrap("aaaa bbbb cc", width: 10) == "aaaa bbbb\ncc")
    #expect(TextWrapping.wrap("aaaa bbbbb cc", width: 10) == "aaaa\nbbbbb cc")
  }

  @Test func indentsEveryLineButEmptyOnes() {
    #expect(
      TextWrapping.wrap("one two\n\nthree", width: 10, indent: 4) == "    one\n    two\n\n    three"
    )
  }

  @Test func keepsAWordLongerThanTheLineWhole() {
    #expect(TextWrapping.wrap("x abcdefghijkl y", width: 6) == "x\nabcdefghijkl\ny")
  }

  @Test func keepsExistingLineBreaks() {
    #expect(TextWrapping.wrap("a\nb c", width: 80) == "a\nb c")
  }
}
