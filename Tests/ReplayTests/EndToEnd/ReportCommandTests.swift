import Foundation
import Testing

/// `replay report` end to end: what it writes, and what it refuses without writing a byte.
@Suite struct ReportCommandTests {
  private func sampleCopy(in directory: String) throws -> String {
    try RepositoryFiles.copySampleLog(to: directory)
  }

  @Test func writesOnePageAndSaysWhatItWrote() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let before = try Data(contentsOf: URL(fileURLWithPath: log))
      let output = directory + "/report.html"
      let result = try ReplayProcess.run(["report", "--log", log, "--output", output])
      #expect(result.status == 0, "\(result.error)")
      #expect(result.output.hasPrefix("wrote the report of \(log) at seq 147"))
      let html = try String(contentsOfFile: output, encoding: .utf8)
      #expect(html.hasPrefix("<!DOCTYPE html>"))
      #expect(html.contains("Miss Piggy"))
      // Nothing else in the folder changed: the log is byte for byte the same, no temporary
      // file is left, no sidecar was made.
      #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before)
      #expect(
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
          "report.html", "sample.jsonl", "sample.jsonl.keys",
        ])
    }
  }

  @Test func aPointAndAWindowNarrowThePage() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let output = directory + "/report.html"
      let result = try ReplayProcess.run([
        "report", "--log", log, "--at", "137", "--from", "120", "--to", "2026-11-02T12:00:00Z",
        "--output", output,
      ])
      #expect(result.status == 0, "\(result.error)")
      let html = try String(contentsOfFile: output, encoding: .utf8)
      #expect(html.contains("Read models at seq 137"))
      // seq 120–137 are the contacts' initial load; 138 and 139 are before noon on the 2nd.
      #expect(html.contains(#"id="timeline" data-events="20""#))
      // At seq 137 nobody has been favourited by hand yet.
      #expect(html.contains(#"data-favorites="4""#))
    }
  }

  @Test(arguments: [
    (["--from", "9", "--to", "3"], 64, "the report's window is empty"),
    (["--from", "soon"], 64, "--from"),
    ([String](), 64, "--output"),
  ])
  func badRequestsAreUsageErrorsAndWriteNothing(
    extra: [String], status: Int32, message: String
  ) throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let output = directory + "/report.html"
      let arguments =
        ["report", "--log", log] + extra + (extra.isEmpty ? [] : ["--output", output])
      let result = try ReplayProcess.run(arguments)
      #expect(result.status == status)
      #expect(result.error.contains(message), "\(result.error)")
      #expect(!FileManager.default.fileExists(atPath: output))
    }
  }

  @Test func anOutputThatCannotBeWrittenIs73AndTheLogIsUntouched() throws {
    try withTemporaryDirectory { directory in
      let log = try sampleCopy(in: directory)
      let before = try Data(contentsOf: URL(fileURLWithPath: log))
      let missingFolder = try ReplayProcess.run([
        "report", "--log", log, "--output", directory + "/no/such/folder/report.html",
      ])
      #expect(missingFolder.status == 73, "\(missingFolder.error)")
      // The log itself is never replaced by its report.
      let ontoTheLog = try ReplayProcess.run(["report", "--log", log, "--output", log])
      #expect(ontoTheLog.status == 73, "\(ontoTheLog.error)")
      #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before)
    }
  }

  @Test func onlyWebAddressesOfPicturesAreLinks() throws {
    try withTemporaryDirectory { directory in
      let source = directory + "/zoo.json"
      try Data(
        #"""
        {"result":{"results":[
        {"_id":1,"A_Name_Ch":"水獺","A_Name_En":"Otter","A_Name_Latin":"Lutra lutra",
         "A_Location":"溫帶動物區","A_Pic01_URL":"javascript:alert(73)//","A_Pic01_ALT":"x"},
        {"_id":2,"A_Name_Ch":"企鵝","A_Name_En":"Penguin","A_Name_Latin":"Spheniscus demersus",
         "A_Location":"企鵝館","A_Pic01_URL":" HTTPS://example.org/p.jpg ","A_Pic01_ALT":"y"}]}}
        """#.utf8
      ).write(to: URL(fileURLWithPath: source))
      let log = directory + "/events.jsonl"
      let imported = try ReplayProcess.run(["import", "zoo", source, "--log", log])
      #expect(imported.status == 0, "\(imported.error)")
      let output = directory + "/report.html"
      let result = try ReplayProcess.run(["report", "--log", log, "--output", output])
      #expect(result.status == 0, "\(result.error)")
      let html = try String(contentsOfFile: output, encoding: .utf8)
      #expect(!html.contains("href=\"javascript"))
      #expect(html.contains("picture address, not linked: <bdi>javascript:alert(73)//</bdi>"))
      #expect(html.contains(#"<a class="pic" href="HTTPS://example.org/p.jpg""#))
      #expect(html.components(separatedBy: "<a class=\"pic\"").count == 2)
      #expect(!html.contains("unsafe-inline"))
    }
  }

  @Test func aMissingLogIs66() throws {
    try withTemporaryDirectory { directory in
      let result = try ReplayProcess.run([
        "report", "--log", directory + "/none.jsonl", "--output", directory + "/r.html",
      ])
      #expect(result.status == 66)
      #expect(!FileManager.default.fileExists(atPath: directory + "/r.html"))
    }
  }
}
