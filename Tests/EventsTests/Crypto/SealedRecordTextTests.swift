import Foundation
import Testing

@testable import Events

/// A sealed record's text is read the same way from a `String` and from a payload's bytes.
@Suite struct SealedRecordTextTests {
  @Test func bothPathsReadWhatFoundationWritesAndRefuseTheSame() {
    var generator = SplitMix64(seed: TestSeed.make("sealed record text"))
    var texts = ["", "QQ==", "QUE=", "A", "AB=A", "ABC$", "AB C", "QQ="]
    for length in 0...120 {
      let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
      let text = Data(bytes).base64EncodedString()
      #expect(SealedRecord(text: text)?.bytes == bytes, "length \(length)")
      texts.append(text)
    }
    for text in texts {
      var utf8 = Array(text.utf8)
      let fromBytes = utf8.withUnsafeMutableBufferPointer {
        SealedRecord(base64: UnsafeBufferPointer($0))
      }
      #expect(fromBytes == SealedRecord(text: text), "\(text)")
    }
  }
}
