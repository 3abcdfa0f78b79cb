import Events
import Foundation
import Testing

@testable import Projections

/// Timings for folding and checkpoints, run only when `PROJECTIONS_BENCHMARK` is set:
///
///     PROJECTIONS_BENCHMARK=1 swift test -c release -Xswiftc -enable-testing \
///       --filter ReadModelsBenchmark
///
/// The events are built in memory first, so `apply` is timed alone (decoding log lines is the
/// engine's part). No timing is asserted: the numbers are printed for a person, and move by a
/// third from run to run on shared cores.
@Suite(
  .serialized, .enabled(if: ProcessInfo.processInfo.environment["PROJECTIONS_BENCHMARK"] != nil))
struct ReadModelsBenchmark {
  private let runs = 5

  /// One million events: the entities are created (57,050 events), then changed (the rest).
  /// The changes are kept small in memory and each is made into its `DomainEvent` inside the
  /// timed loop, as the engine's decoder hands over a fresh event: copying 520-byte events out
  /// of a 500 MB array would time memory bandwidth instead of `apply`. The same loop without
  /// `apply` is timed too, and subtracted.
  @Test func applyThroughputOfARealisticMix() {
    let log = BenchmarkLog.realisticMix(eventCount: 1_000_000, seed: 0xBE4C_0001)
    var kinds: [String: Int] = [:]
    for event in log.setup { kinds[event.eventType, default: 0] += 1 }
    for change in log.changes { kinds[change.event.eventType, default: 0] += 1 }
    print("ReadModelsBenchmark mix:", kinds.sorted { $0.key < $1.key })
    print("ReadModelsBenchmark: a DomainEvent takes \(MemoryLayout<DomainEvent>.stride) bytes")
    let count = log.setup.count + log.changes.count

    var final = ReadModels()
    let total = (0..<runs).map { _ in
      seconds {
        var models = ReadModels()
        for (offset, event) in log.setup.enumerated() {
          models.apply(event, at: context(Int64(offset + 1)))
        }
        var sequence = Int64(log.setup.count)
        for change in log.changes {
          sequence += 1
          models.apply(change.event, at: context(sequence))
        }
        final = models
      }
    }
    var visited = 0
    let loop = (0..<runs).map { _ in
      seconds {
        for (offset, event) in log.setup.enumerated() {
          visited &+= opaqueVisit(event, context(Int64(offset + 1)))
        }
        var sequence = Int64(log.setup.count)
        for change in log.changes {
          sequence += 1
          visited &+= opaqueVisit(change.event, context(sequence))
        }
      }
    }
    report("all five models, loop included", count, total)
    report("the loop alone, no apply (\(visited % 2))", count, loop)
    let applyOnly = median(total) - median(loop)
    print(
      "ReadModelsBenchmark apply alone (median with apply - median without): "
        + "\(format(applyOnly * 1e9 / Double(count))) ns/event, "
        + "\(Int(Double(count) / applyOnly)) events/s")
    print(
      "ReadModelsBenchmark final state: \(final.contacts.count) contacts, "
        + "\(final.zipCodes.count) states, \(final.locations.count) locations, "
        + "\(final.observations.count) observations, \(final.animals.count) animals")

    // The entities' creation alone, then each kind of change alone on the state they made.
    var setup = ReadModels()
    let creation = (0..<runs).map { _ in
      seconds {
        setup = ReadModels()
        for (offset, event) in log.setup.enumerated() {
          setup.apply(event, at: context(Int64(offset + 1)))
        }
      }
    }
    let creationLoop = (0..<runs).map { _ in
      seconds {
        for (offset, event) in log.setup.enumerated() {
          visited &+= opaqueVisit(event, context(Int64(offset + 1)))
        }
      }
    }
    print(
      "ReadModelsBenchmark apply, creating the \(log.setup.count) entities: "
        + "\(format(median(creation) * 1e9 / Double(log.setup.count))) ns/event with the loop, "
        + "\(format((median(creation) - median(creationLoop)) * 1e9 / Double(log.setup.count))) ns/event alone"
    )
    let changeKinds = Dictionary(grouping: log.changes) { $0.event.eventType }
    for (kind, changes) in changeKinds.sorted(by: { $0.key < $1.key }) {
      var models = setup
      models.apply(changes[0].event, at: context(0))  // copies the shared storage, untimed
      let timings = (0..<runs).map { _ in
        seconds { for change in changes { models.apply(change.event, at: context(1)) } }
      }
      let loop = (0..<runs).map { _ in
        seconds { for change in changes { visited &+= opaqueVisit(change.event, context(1)) } }
      }
      print(
        "ReadModelsBenchmark apply, \(kind): \(changes.count) events, "
          + "\(format(median(timings) * 1e9 / Double(changes.count))) ns/event with the loop, "
          + "\(format((median(timings) - median(loop)) * 1e9 / Double(changes.count))) ns/event alone"
      )
    }
  }

  /// Payloads decoded from their JSON, then folded: everything replay does per event but read
  /// and check the envelope. The payloads sit in one buffer, as lines of a log would.
  @Test func decodeAndApplyOfARealisticMix() throws {
    let log = BenchmarkLog.realisticMix(eventCount: 1_000_000, seed: 0xBE4C_0001)
    var buffer: [UInt8] = []
    var records: [(typeStart: Int, typeCount: Int, dataStart: Int, dataCount: Int)] = []
    func add(_ event: DomainEvent) {
      let typeStart = buffer.count
      buffer.append(contentsOf: event.eventType.utf8)
      var writer = JSONWriter(capacity: 256)
      event.encode(to: &writer)
      let dataStart = buffer.count
      buffer.append(contentsOf: writer.bytes)
      records.append((typeStart, dataStart - typeStart, dataStart, writer.bytes.count))
    }
    for event in log.setup { add(event) }
    for change in log.changes { add(change.event) }
    print("ReadModelsBenchmark decode+apply: \(records.count) payloads, \(buffer.count) bytes")
    var failures = 0
    func run(apply: Bool) -> Double {
      seconds {
        var models = ReadModels()
        buffer.withUnsafeBufferPointer { bytes in
          guard let base = bytes.baseAddress else { return }
          for (index, record) in records.enumerated() {
            let type = UnsafeBufferPointer(start: base + record.typeStart, count: record.typeCount)
            var cursor = JSONCursor(base: base + record.dataStart, count: record.dataCount)
            do {
              guard
                let event = try EventVocabulary.decode(
                  type: type, schemaVersion: 1, data: &cursor, strict: false)
              else { continue }
              if apply { models.apply(event, at: context(Int64(index + 1))) }
            } catch {
              failures += 1
            }
          }
        }
        if apply { #expect(models.contacts.count == 20_000) }
      }
    }
    let withApply = median((0..<runs).map { _ in run(apply: true) })
    let decodeOnly = median((0..<runs).map { _ in run(apply: false) })
    #expect(failures == 0)
    let count = Double(records.count)
    print(
      "ReadModelsBenchmark decode+apply: \(format(withApply * 1e9 / count)) ns/event "
        + "(\(Int(count / withApply)) events/s); decoding alone \(format(decodeOnly * 1e9 / count)) "
        + "ns/event, so apply \(format((withApply - decodeOnly) * 1e9 / count)) ns/event")
  }

  /// Hands `event` to a function of another module (Events), as `apply` is; `entityKind`
  /// itself is one `switch`.
  private func opaqueVisit(_ event: DomainEvent, _ context: EventContext) -> Int {
    event.entityKind == .contact ? 1 : 0
  }

  private func report(_ what: String, _ count: Int, _ timings: [Double]) {
    let median = median(timings)
    print(
      "ReadModelsBenchmark apply, \(what): \(count) events, median \(format(median)) s, "
        + "\(format(median * 1e9 / Double(count))) ns/event "
        + "(\(Int(Double(count) / median)) events/s); best "
        + "\(format((timings.min() ?? 0) * 1e9 / Double(count))) ns/event")
  }

  @Test func checkpointOfAHundredThousandContacts() throws {
    let events = BenchmarkLog.contacts(count: 100_000, seed: 0xBE4C_0002)
    let contacts = fold(ContactList.self, events)
    var bytes: [UInt8] = []
    let encode = median((0..<runs).map { _ in seconds { bytes = contacts.checkpointBytes() } })
    var decoded = ContactList()
    let decode = median(
      (0..<runs).map { _ in
        seconds { decoded = (try? ContactList(checkpointBytes: bytes)) ?? ContactList() }
      })
    #expect(decoded == contacts)
    print(
      "ReadModelsBenchmark contacts checkpoint: \(contacts.count) contacts, \(bytes.count) bytes "
        + "(\(bytes.count / contacts.count) a contact); encode \(format(encode * 1000)) ms "
        + "(\(format(Double(bytes.count) / encode / 1e6)) MB/s), decode \(format(decode * 1000)) ms "
        + "(\(format(Double(bytes.count) / decode / 1e6)) MB/s)")

    var models = ReadModels()
    models.contacts = contacts
    let checkpoint = ReadModelCheckpoint(models: models, sequence: 100_000, anchor: "x")
    var file: [UInt8] = []
    let fileEncode = median((0..<runs).map { _ in seconds { file = checkpoint.encoded() } })
    var restored: ReadModelCheckpoint?
    let fileDecode = median(
      (0..<runs).map { _ in seconds { restored = try? ReadModelCheckpoint(decoding: file) } })
    #expect(restored == checkpoint)
    print(
      "ReadModelsBenchmark checkpoint file (CRC-32C included): encode \(format(fileEncode * 1000)) ms, "
        + "decode \(format(fileDecode * 1000)) ms")
  }

  @Test func viewsOfAHundredThousandContacts() {
    let contacts = fold(ContactList.self, BenchmarkLog.contacts(count: 100_000, seed: 0xBE4C_0003))
    var sections: [ContactSection] = []
    let sort = median((0..<runs).map { _ in seconds { sections = contacts.sections } })
    var json: [UInt8] = []
    let encode = median(
      (0..<runs).map { _ in
        seconds {
          var writer = JSONWriter(capacity: 1 << 20)
          contacts.encode(to: &writer)
          json = writer.bytes
        }
      })
    print(
      "ReadModelsBenchmark contacts views: sections of \(sections.map(\.contacts.count)) in "
        + "\(format(sort * 1000)) ms; JSON of \(json.count) bytes in \(format(encode * 1000)) ms")
  }

  private func seconds(_ body: () -> Void) -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
  }

  private func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

  private func format(_ value: Double) -> String { String(format: "%.3f", value) }
}

/// Synthetic logs shaped like the apps' real use.
enum BenchmarkLog {
  /// `count` contacts with every field filled the way the seed data fills them.
  static func contacts(count: Int, seed: UInt64) -> [DomainEvent] {
    var random = TestRandom(seed: seed)
    let first = ["Harry", "Hermione", "Zoë", "Émile", "Charlie", "Lucy", "Kermit", "Miss", "JP"]
    let last = ["Potter", "Granger", "Brown", "Van Pelt", "the Frog", "Piggy", "Sullivan"]
    return (0..<count).map { number in
      let name = "\(random.pick(first)) \(random.pick(last)) \(number)"
      let slug = name.lowercased().replacingOccurrences(of: " ", with: "-")
      let record = ContactRecord(
        id: contactID(String(number)), name: name,
        companyName: random.chance(0.7) ? "Company \(number % 500)" : nil,
        isFavorite: random.chance(0.1),
        smallImageURL: "https://s3.amazonaws.com/technical-challenge/v3/images/\(slug)-small.jpg",
        largeImageURL: "https://s3.amazonaws.com/technical-challenge/v3/images/\(slug)-large.jpg",
        emailAddress: "\(slug)@example.com",
        birthdate: valid {
          try CalendarDate(year: 1950 + number % 50, month: 1 + number % 12, day: 1 + number % 28)
        },
        phone: PhoneNumbers(
          work: random.chance(0.8) ? "602-225-\(1000 + number % 9000)" : nil,
          home: "602-225-\(1000 + (number * 7) % 9000)",
          mobile: random.chance(0.5) ? "602-953-\(1000 + number % 9000)" : nil),
        address: PostalAddress(
          street: "\(number % 9000) E Washington St", city: "Phoenix", state: "AZ", country: "US",
          zipCode: "85034"))
      return .contact(.added(ContactAdded(record: record, source: "contacts.json")))
    }
  }

  /// A change of the realistic mix, small in memory; `event` makes its `DomainEvent`.
  enum Change {
    case favorite(ContactID)
    case unfavorite(ContactID)
    case updateMobilePhone(ContactID)
    case modifyZipCode(StateName, from: ZipCode, to: ZipCode)
    case move(LocationID, Coordinate)
    case rename(LocationID)
    case revise(ObservationID)

    var event: DomainEvent {
      switch self {
      case .favorite(let id): return .contact(.favorited(ContactFavorited(id: id)))
      case .unfavorite(let id): return .contact(.unfavorited(ContactUnfavorited(id: id)))
      case .updateMobilePhone(let id):
        var update = ContactUpdated(id: id)
        update.mobilePhone = .set("602-953-0000")
        return .contact(.updated(update))
      case .modifyZipCode(let state, let from, let to):
        return .state(.zipCodeModified(ZipCodeModified(state: state, from: from, to: to)))
      case .move(let id, let coordinate):
        return .location(.moved(LocationMoved(id: id, coordinate: coordinate)))
      case .rename(let id): return .location(.renamed(LocationRenamed(id: id, name: "Renamed")))
      case .revise(let id):
        return .observation(.revised(ObservationRevised(id: id, description: "Seen again.")))
      }
    }
  }

  /// About `eventCount` events: the entities first (20,000 contacts, 50 states of 400 zip codes,
  /// 10,000 locations, 5,000 observations, 2,000 animals), then a stream of changes: 40%
  /// favourite toggles, 25% zip code modifications, 20% location moves, 5% renames, 5%
  /// observation revisions, 5% contact updates.
  static func realisticMix(
    eventCount: Int, seed: UInt64
  ) -> (setup: [DomainEvent], changes: [Change]) {
    var random = TestRandom(seed: seed)
    var events = contacts(count: 20_000, seed: seed)
    var zipCodesByState: [[ZipCode]] = []
    var states: [StateName] = []
    for stateNumber in 0..<50 {
      let state = stateName("State \(stateNumber)")
      states.append(state)
      events.append(.state(.stateAdded(StateAdded(state: state))))
      var zips: [ZipCode] = []
      for zipNumber in 0..<400 {
        let zip = zipCode(String(10_000 + stateNumber * 1000 + zipNumber))
        zips.append(zip)
        events.append(.state(.zipCodeAdded(ZipCodeAdded(state: state, zipCode: zip))))
      }
      zipCodesByState.append(zips)
    }
    let locationIDs = (0..<10_000).map { locationID("location-\($0)") }
    for id in locationIDs {
      let record = LocationRecord(
        id: id, name: "Place \(id.rawValue.dropFirst(9))",
        coordinate: coordinate(
          Double.random(in: -80...80, using: &random),
          Double.random(in: -180...180, using: &random)))
      events.append(.location(.added(LocationAdded(record: record))))
    }
    let observationIDs = (0..<5_000).map { ObservationID.derived(from: "observation \($0)") }
    for id in observationIDs {
      let record = ObservationRecord(
        classification: random.pick(Classification.allCases), title: "Observation",
        description: "Seen near the pond.",
        date: Timestamp(
          millisecondsSince1970: Int64.random(in: 0...2_000_000_000_000, using: &random)))
      events.append(.observation(.recorded(ObservationRecorded(id: id, record: record))))
    }
    for number in 0..<2_000 {
      if number % 10 == 0 {
        events.append(
          .zoo(
            .inserted(
              AnimalInserted(
                id: .inserted(number: number), name: "Bobo", description: "A pet",
                picturePath: "/photos/\(number).jpg"))))
      } else {
        let record = AnimalRecord(
          sourceID: number, nameChinese: "大貓熊", nameEnglish: "Giant Panda", location: "大貓熊館",
          pictures: [MediaLink(url: "http://www.zoo.gov.tw/\(number).jpg")])
        events.append(.zoo(.imported(AnimalImported(record: record))))
      }
    }
    var changes: [Change] = []
    changes.reserveCapacity(eventCount - events.count)
    var favorite = [Bool](repeating: false, count: 20_000)
    var nextZip = 90_000
    while events.count + changes.count < eventCount {
      let roll = Int.random(in: 0..<100, using: &random)
      switch roll {
      case 0..<40:
        let number = Int.random(in: 0..<20_000, using: &random)
        let id = contactID(String(number))
        favorite[number].toggle()
        changes.append(favorite[number] ? .favorite(id) : .unfavorite(id))
      case 40..<65:
        let stateIndex = Int.random(in: 0..<50, using: &random)
        let zipIndex = Int.random(in: 0..<400, using: &random)
        let old = zipCodesByState[stateIndex][zipIndex]
        let new = zipCode(String(nextZip))
        nextZip = nextZip == 99_999 ? 90_000 : nextZip + 1
        if zipCodesByState[stateIndex].contains(new) { continue }
        zipCodesByState[stateIndex][zipIndex] = new
        changes.append(.modifyZipCode(states[stateIndex], from: old, to: new))
      case 65..<85:
        let moved = coordinate(
          Double.random(in: -80...80, using: &random), Double.random(in: -180...180, using: &random)
        )
        changes.append(.move(random.pick(locationIDs), moved))
      case 85..<90:
        changes.append(.rename(random.pick(locationIDs)))
      case 90..<95:
        changes.append(.revise(random.pick(observationIDs)))
      default:
        changes.append(
          .updateMobilePhone(contactID(String(Int.random(in: 0..<20_000, using: &random)))))
      }
    }
    return (events, changes)
  }
}
