import Events
import Foundation
import Testing

@testable import Engine
@testable import Importers

/// Property lists the `import` fuzz target found crashing the importer, each now refused with
/// an error naming what was found.
@Suite struct PropertyListFuzzFindingsTests {
  /// A binary property list whose root is a set (marker 0xC2), as the fuzzer made it from the
  /// states seed: Foundation's `PropertyListSerialization` crashed bridging it (SIGSEGV in
  /// `swift_dynamicCast`). Kept in Fuzz/Corpus/import/bplist-set-crashes-foundation.
  @Test func aBinaryListHoldingASetIsRefusedBeforeFoundationReadsIt() throws {
    let path = RepositoryFiles.root.appendingPathComponent(
      "Fuzz/Corpus/import/bplist-set-crashes-foundation"
    ).path
    let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    #expect(BinaryPropertyListDepth.check(bytes, limit: 512) == .holdsASet(object: 0))
    for kind in ImportKind.allCases {
      #expect(throws: ImportError.self) {
        _ = try SourceParser.parse(bytes, kind: kind, sourceName: "fuzzed.plist")
      }
    }
  }

  /// A set anywhere below the root is refused as well.
  @Test func aSetInsideAnArrayIsRefused() {
    // bplist00; object 0: array holding object 1; object 1: an empty set.
    var bytes = Array("bplist00".utf8) + [0xA1, 0x01, 0xC0]
    let tableOffset = bytes.count
    bytes += [8, 10]
    bytes += [0, 0, 0, 0, 0, 0, 1, 1]
    bytes += [0, 0, 0, 0, 0, 0, 0, 2]
    bytes += [0, 0, 0, 0, 0, 0, 0, 0]
    bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(tableOffset)]
    #expect(BinaryPropertyListDepth.check(bytes, limit: 512) == .holdsASet(object: 1))
    let message = NestingDepthTests.parseError(bytes, .states)
    #expect(message?.contains("found a set (object 1 of the binary property list)") == true)
  }
}
