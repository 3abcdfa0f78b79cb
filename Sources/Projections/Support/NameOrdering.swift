import Foundation

/// How the views order things by name: alphabetically, ignoring case and diacritics.
///
/// Each name is folded once per view (`String.folding(options: [.caseInsensitive,
/// .diacriticInsensitive], locale: nil)`, so `Zoë`, `zoe` and `ZOE` all fold to `zoe` and
/// `Émile` to `emile`), then the folded keys are compared as Swift strings (by Unicode scalar
/// values after canonical normalisation; no locale is involved, so the order is the same
/// everywhere). Equal keys are ordered by id. Folding happens here, in views, never in `apply`.
enum NameOrdering {
  /// The key a name sorts by.
  static func key(_ name: String) -> String {
    // ASCII has no diacritics, and folds its case to lower case: no need for Foundation.
    if name.utf8.allSatisfy({ $0 < 0x80 }) {
      guard name.utf8.contains(where: { $0 &- 0x41 < 26 }) else { return name }
      return String(decoding: name.utf8.map { $0 &- 0x41 < 26 ? $0 | 0x20 : $0 }, as: UTF8.self)
    }
    return name.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
  }

  /// The positions of `names` in sorted order: by folded name, then by `ids`.
  /// - Complexity: O(n log n) comparisons, plus one fold per name.
  static func sortedPositions<ID: Comparable>(names: [String], ids: [ID]) -> [Int] {
    let keys = names.map(key)
    return keys.indices.sorted { left, right in
      keys[left] != keys[right] ? keys[left] < keys[right] : ids[left] < ids[right]
    }
  }
}
