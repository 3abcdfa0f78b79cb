import Engine
import Events
import Foundation
import ReplayTestSupport
import Report
import Testing

/// The audit report's tree head: the size and root `replay head --at` gives at the report's
/// point.
@Suite struct ReportTreeHeadTests {
  static func report(_ path: String, _ point: ReplayPoint) throws -> AuditReport {
    try AuditReport.build(
      replayer: Replayer(
        reader: LogReader(path: path), checkpoints: CheckpointStore(logPath: path)),
      request: AuditReport.Request(point: point))
  }

  @Test(arguments: [nil, 1, 299, 300] as [Int64?])
  func theReportShowsTheTreeHeadAtItsPoint(point: Int64?) throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 300, seed: "report-head")
      let leaves = try LogTreeTests.leafHashes(path)
      let report = try Self.report(path, point.map { .sequence($0) } ?? .end)
      let size = point ?? 300
      let head = try #require(report.integrity.treeHead)
      #expect(head.size == size)
      #expect(head.root == MerkleTree.root(leafHashes: Array(leaves[..<Int(size)])))
      #expect(report.html().contains("\(size) \(SHA256.hex(head.root))"))
    }
  }
}
