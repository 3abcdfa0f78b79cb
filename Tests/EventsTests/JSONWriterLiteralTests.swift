import Events
import Testing

/// The writer's literal words and escapes, written from this module (which inlines the writer's
/// `@inlinable` methods, as Engine and the CLI do) with values the optimizer cannot see.
@Suite struct JSONWriterLiteralTests {
  @Test(arguments: [true, false])
  func boolWritesItsWord(value: Bool) {
    var writer = JSONWriter()
    writer.beginArray()
    writer.bool(value)
    writer.bool(!value)
    writer.null()
    writer.endArray()
    let text = String(decoding: writer.bytes, as: UTF8.self)
    #expect(text == (value ? "[true,false,null]" : "[false,true,null]"))
  }

  @Test func controlCharactersAreEscapedAsLowercaseHex() {
    var writer = JSONWriter()
    writer.string("\u{01}\u{1F}\u{0B}\u{0A}")
    #expect(String(decoding: writer.bytes, as: UTF8.self) == #""\u0001\u001f\u000b\n""#)
  }
}
