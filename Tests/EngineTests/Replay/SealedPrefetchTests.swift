import Projections
import Testing

@testable import Engine

/// A replay opens sealed contact records on its reading thread while that thread is far enough
/// ahead of the fold, and leaves them to the fold otherwise.
@Suite struct SealedPrefetchTests {
  /// Whichever thread opens each record (the reading thread always, never, or as the balance
  /// decides), the models are the same, and the same as folding every event decoded in full.
  @Test func theModelsDoNotDependOnWhichThreadOpensSealedRecords() throws {
    try withTemporaryDirectory { directory in
      let path = try makeGeneratedLog(in: directory, count: 4000, seed: "sealed-prefetch")
      let text = String(decoding: try fileBytes(path), as: UTF8.self)
      #expect(text.contains(#""sealed":"#))
      var reference = ReadModels()
      for event in try readAll(path) { try reference.fold(event, path: path) }
      // Small chunks, read on two threads, so that the lead moves through many chunks.
      var reader = LogReader(path: path, readSize: 16 << 10)
      reader.pipelineThreshold = 0
      for lead: Int64? in [nil, 0, .max, 40 << 10] {
        var replayer = Replayer(reader: reader)
        replayer.sealedOpeningLead = lead
        let models = try replayer.readModels(at: .end).models
        #expect(models == reference, "lead \(String(describing: lead))")
        #expect(models.contacts.count > 0)
      }
    }
  }
}
