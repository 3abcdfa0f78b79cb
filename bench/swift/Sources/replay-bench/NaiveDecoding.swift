import Foundation

/// The naive baseline: every line decoded by Foundation's `JSONDecoder` into a `Codable`
/// envelope whose payload has every field of every event type (the way one would write it
/// without a hand-made parser). Checksums are not checked: this is the decoding cost alone.
enum NaiveDecoding {
  struct Envelope: Decodable {
    var seq: Int64
    var id: String
    var stream: String
    var version: Int64
    var type: String
    var schema: Int
    var at: String
    var batch: [Int64]?
    var meta: Meta?
    var data: Payload
    var crc: String
  }

  struct Meta: Decodable {
    var actor: String?
    var reason: String?
    var correlation: String?
    var causation: String?
  }

  struct Coordinate: Decodable {
    var latitude: Double
    var longitude: Double
  }

  struct Phone: Decodable {
    var work: String?
    var home: String?
    var mobile: String?
  }

  struct Address: Decodable {
    var street: String?
    var city: String?
    var state: String?
    var country: String?
    var zipCode: String?
  }

  struct Link: Decodable {
    var url: String?
    var alt: String?
  }

  /// Every payload field of the five domains, each optional.
  struct Payload: Decodable {
    // Shared.
    var id: String?
    var name: String?
    var source: String?
    // Contacts.
    var companyName: String?
    var isFavorite: Bool?
    var smallImageURL: String?
    var largeImageURL: String?
    var emailAddress: String?
    var birthdate: String?
    var phone: Phone?
    var address: Address?
    // States.
    var state: String?
    var zipCode: String?
    var from: String?
    var to: String?
    // Locations (and zoo records' coordinate).
    var coordinate: Coordinate?
    // Observations.
    var classification: String?
    var title: String?
    var description: String?
    var date: String?
    // Zoo.
    var sourceID: Int?
    var nameChinese: String?
    var nameEnglish: String?
    var nameLatin: String?
    var alsoKnownAs: String?
    var location: String?
    var geo: String?
    var phylum: String?
    var `class`: String?
    var order: String?
    var family: String?
    var conservation: String?
    var distribution: String?
    var habitat: String?
    var feature: String?
    var behavior: String?
    var diet: String?
    var crisis: String?
    var interpretation: String?
    var themeName: String?
    var themeURL: String?
    var adopt: String?
    var code: String?
    var pictures: [Link]?
    var pdfs: [Link]?
    var voices: [Link]?
    var videoURL: String?
    var update: String?
    var cid: String?
    var summary: String?
    var keywords: String?
    var poiGroup: String?
    var picturePath: String?
  }

  static func run(_ arguments: Arguments) throws {
    let path = try arguments.path(0)
    let limit = arguments.int("--limit") ?? .max
    let decoder = JSONDecoder()
    var events = 0
    var bytes = 0
    var checksum = 0
    let seconds = try measure {
      try LineSplit.forEachLine(path, limit: limit) { base, length in
        let line = Data(bytes: base, count: length)
        let envelope = try decoder.decode(Envelope.self, from: line)
        checksum &+= Int(envelope.seq) &+ (envelope.data.id?.utf8.count ?? 0)
        events += 1
        bytes += length + 1
      }
    }
    report(["events": events, "bytes": bytes, "seconds": seconds, "checksum": checksum])
  }
}
