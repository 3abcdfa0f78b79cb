import Events
import Foundation
import ReplayTestSupport
import Testing

@testable import Engine

/// A key store never drops a complete key (issue 32): every truncation and every single-byte
/// change of the shipped sample's real store either reads every key whose line is whole, or
/// fails naming a line; a torn tail is cut by the next writer into the log's quarantine, never
/// lost; and the next writer can always go on.
@Suite struct KeyStoreDamageTests {
  static let sample = Array(
    (try? Data(contentsOf: URL(fileURLWithPath: RepositoryFiles.sampleLog + ".keys"))) ?? Data())

  /// Each line of the sample store (without its newline) and where it ends.
  static var lines: [(bytes: ArraySlice<UInt8>, end: Int)] {
    var result: [(ArraySlice<UInt8>, Int)] = []
    var start = 0
    for (index, byte) in sample.enumerated() where byte == 0x0A {
      result.append((sample[start..<index], index))
      start = index + 1
    }
    return result
  }

  /// The keys of the whole sample store, by id.
  static func sampleKeys() throws -> [KeyStore.KeyID: KeyStore.Entry] {
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      try Data(sample).write(to: URL(fileURLWithPath: log + ".keys"))
      return try KeyStore(logPath: log).keys
    }
  }

  @Test func everyTruncationKeepsEveryWholeLineAndTheNextWriterGoesOn() throws {
    #expect(Self.sample.count > 1_000)
    let all = try Self.sampleKeys()
    #expect(all.count >= 15)
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      for length in 0...Self.sample.count {
        try Data(Self.sample[..<length]).write(to: URL(fileURLWithPath: log + ".keys"))
        var store = try KeyStore(logPath: log)
        // Every key whose line is whole (a missing newline aside) is read (the header and the
        // write mark are not keys).
        let expected = Self.lines.filter {
          $0.end <= length && $0.bytes.starts(with: KeyStore.keyLinePrefix)
        }.count
        #expect(store.keys.count == max(0, expected), "truncated at \(length)")
        for (id, entry) in store.keys { #expect(all[id] == entry) }
        // Near line ends, and every seventh byte, the next writer goes on and loses nothing.
        let nearEnd = Self.lines.contains { abs($0.end - length) <= 1 }
        guard nearEnd || length % 7 == 0 else { continue }
        let kept = store.keys
        let added = try store.add(contact: "new-\(length)")
        let reread = try KeyStore(logPath: log)
        #expect(reread.keys.count == kept.count + 1, "after an add at \(length)")
        #expect(reread.lookup(added.id) == .present(added))
        for (id, entry) in kept { #expect(reread.lookup(id) == .present(entry)) }
      }
    }
  }

  /// Alone, the sample store (one append of 18 keys) is not known to be synced: a zero inside it
  /// may read as that append torn, and its keys then go to quarantine, never lost. Beside its
  /// log, which uses every key, it is a synced store: every change is refused or read whole.
  @Test(arguments: [false, true])
  func everySingleByteChangeIsReadWholeOrNamedNeverSilentlyLost(besideItsLog: Bool) throws {
    let all = try Self.sampleKeys()
    let lines = Self.lines
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      if besideItsLog { try writeBytes(try fileBytes(RepositoryFiles.sampleLog), to: log) }
      var named = 0
      var quarantined = 0
      for position in Self.sample.indices {
        for replacement in [Self.sample[position] ^ 0x20, 0]
        where replacement != Self.sample[position] {
          var bytes = Self.sample
          bytes[position] = replacement
          try Data(bytes).write(to: URL(fileURLWithPath: log + ".keys"))
          try? FileManager.default.removeItem(atPath: log + ".quarantine")
          let damagedLine = lines.firstIndex { $0.end >= position } ?? lines.count - 1
          var store: KeyStore
          do throws(KeyStoreError) {
            store = try KeyStore(logPath: log)
          } catch {
            guard case .corrupt(_, let line, _) = error else {
              Issue.record("byte \(position): \(error)")
              continue
            }
            #expect(line >= 1 && line <= lines.count + 1, "byte \(position)")
            named += 1
            continue
          }
          // Read: every untouched key is there as it was.
          for (index, line) in lines.enumerated()
          where index != damagedLine && line.bytes.starts(with: KeyStore.keyLinePrefix) {
            let id = try #require(
              KeyStore.KeyID(String(decoding: line.bytes.dropFirst(8).prefix(16), as: UTF8.self)))
            // Or, alone, cut with a torn append (then found in quarantine below).
            let lookup = store.lookup(id)
            #expect(
              lookup == all[id].map { .present($0) } || (!besideItsLog && lookup == .missing),
              "byte \(position)")
          }
          for (id, entry) in store.keys { #expect(all[id] == entry, "byte \(position)") }
          let missing = all.keys.filter { store.keys[$0] == nil }
          guard !missing.isEmpty else { continue }
          #expect(!besideItsLog, "byte \(position): keys the log uses were not read")
          // A key not read was a torn tail: the next writer keeps its bytes in quarantine.
          _ = try store.add(contact: "next")
          let folder = log + ".quarantine"
          let saved = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
          let kept = saved.map {
            (try? Data(contentsOf: URL(fileURLWithPath: folder + "/" + $0))) ?? Data()
          }.reduce(Data(), +)
          let text = String(decoding: kept, as: UTF8.self)
          // A zero inside the last line reads as a torn write's missing page (issue 35): the
          // line, zero and all, is what quarantine keeps.
          let damaged = Data(bytes[(lines[damagedLine].bytes.startIndex)..<lines[damagedLine].end])
          for id in missing {
            #expect(
              text.contains(id.description) || kept.range(of: damaged) != nil,
              "byte \(position): key \(id) lost, not quarantined")
          }
          quarantined += 1
        }
      }
      print(
        "single-byte changes\(besideItsLog ? " beside the log" : ""): \(named) named a line, "
          + "\(quarantined) quarantined a torn tail")
      #expect(named > 0)
    }
  }

  @Test func zerosWhereATornWriteNeverLandedAreSkippedAndTheKeysAfterThemRead() throws {
    let all = try Self.sampleKeys()
    let lines = Self.lines
    try withTemporaryDirectory { directory in
      let log = directory + "/events.jsonl"
      // The last two key lines written at once; the pages of the first never landed.
      let first = lines[lines.count - 2]
      let start = first.end - first.bytes.count
      var bytes = Self.sample
      for index in start...first.end { bytes[index] = 0 }
      try Data(bytes).write(to: URL(fileURLWithPath: log + ".keys"))
      var store = try KeyStore(logPath: log)
      #expect(store.keys.count == all.count - 1)
      let added = try store.add(contact: "after-zeros")
      #expect(try KeyStore(logPath: log).lookup(added.id) == .present(added))
      // A first write torn to zeros: a store that is only zeros is an empty one.
      try Data([UInt8](repeating: 0, count: 300)).write(to: URL(fileURLWithPath: log + ".keys"))
      var empty = try KeyStore(logPath: log)
      #expect(empty.keys.isEmpty)
      let made = try empty.add(contact: "first")
      #expect(try KeyStore(logPath: log).keys == [made.id: made])
    }
  }
}
