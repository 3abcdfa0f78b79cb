import Events

/// The ids of one page's imported animals: each record's name at its place
/// (`AnimalID.imported(latinName:chineseName:coordinate:occurrence:)`), the first free
/// occurrence of it in source order.
///
/// Records with the same name and place (the same species in one enclosure, listed twice) are
/// told apart by the counter alone: the first is `zoo-<name>[-at-<place>]`, the next `...-2`,
/// and so on. A record of another name or place, inserted or removed between two versions of
/// the source, changes no other record's id. An id a repeat would take that an earlier record
/// of the page already has (`Alpha 2` beside two `Alpha`s) is skipped for the next number, so
/// no two records of a page ever share an id.
struct ZooRecordIdentities {
  /// Every id given so far.
  private var given: Set<AnimalID> = []
  /// For each id at occurrence 1, the next occurrence to try.
  private var nextOccurrence: [AnimalID: Int] = [:]

  /// The id of `record`, the next one of this page in source order; `nil` when it has neither
  /// a Latin nor a Chinese name to be identified by.
  mutating func id(for record: AnimalRecord) -> AnimalID? {
    guard
      let first = AnimalID.imported(
        latinName: record.nameLatin, chineseName: record.nameChinese,
        coordinate: record.coordinate)
    else { return nil }
    var occurrence = nextOccurrence[first, default: 1]
    while true {
      guard
        let id = AnimalID.imported(
          latinName: record.nameLatin, chineseName: record.nameChinese,
          coordinate: record.coordinate, occurrence: occurrence)
      else { return nil }
      occurrence += 1
      if given.insert(id).inserted {
        nextOccurrence[first] = occurrence
        return id
      }
    }
  }
}
