/// Finds the name a user probably meant when they misspelled an option or subcommand.
enum SpellingSuggestion {
  /// The closest candidate to a misspelled name, if one is close enough.
  ///
  /// Leading dashes are ignored when comparing, so `-from` suggests `--from`. A candidate is
  /// close enough when its edit distance is at most `maximumDistance(forLength:)` of the
  /// candidate's length and smaller than that length, so a short name is never suggested for
  /// unrelated input. Ties go to the earlier candidate.
  ///
  /// - Note: swift-argument-parser suggests any long option within a Levenshtein distance of 3,
  ///   dashes included, which offers `--to` for `--xyz`; a limit that grows with the length
  ///   avoids that. A swap of adjacent characters counts as one edit, so `--form` is one edit
  ///   from `--from` and `--fomr` two.
  ///
  /// - Parameters:
  ///   - input: The name as typed, such as `--fomr` or `apend`.
  ///   - candidates: The valid names, in the order to prefer on ties.
  /// - Returns: The closest candidate, or `nil` if none is close enough or the input is valid.
  /// - Complexity: O(*n* × *m*²) for *n* candidates of length *m*.
  static func closest(to input: String, among candidates: [String]) -> String? {
    let typed = input.drop { $0 == "-" }
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let name = candidate.drop { $0 == "-" }
      let distance = editDistance(typed, name)
      guard distance <= maximumDistance(forLength: name.count), distance < name.count else {
        continue
      }
      if best.map({ distance < $0.distance }) ?? true {
        best = (candidate, distance)
      }
    }
    return best?.candidate
  }

  /// The largest edit distance accepted for a name of a given length: one edit up to three
  /// characters, two up to eight, three beyond.
  ///
  /// - Parameter length: The candidate's length, without leading dashes.
  /// - Returns: The largest accepted distance.
  static func maximumDistance(forLength length: Int) -> Int {
    switch length {
    case ...3: 1
    case ...8: 2
    default: 3
    }
  }

  /// The optimal-string-alignment distance: the fewest insertions, deletions, substitutions
  /// and swaps of adjacent characters that turn one string into the other.
  ///
  /// - Parameters:
  ///   - source: One string.
  ///   - target: The other string.
  /// - Returns: The distance; 0 when the strings are equal.
  /// - Complexity: O(*m* × *n*) time, O(*n*) space.
  static func editDistance(_ source: some StringProtocol, _ target: some StringProtocol) -> Int {
    let source = Array(source)
    let target = Array(target)
    if source.isEmpty { return target.count }
    if target.isEmpty { return source.count }
    // Three rows of the dynamic-programming table: two back (for swaps), previous, current.
    var twoBack = [Int](repeating: 0, count: target.count + 1)
    var previous = Array(0...target.count)
    var current = [Int](repeating: 0, count: target.count + 1)
    for i in 1...source.count {
      current[0] = i
      for j in 1...target.count {
        let substitution = source[i - 1] == target[j - 1] ? 0 : 1
        current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + substitution)
        if i > 1, j > 1, source[i - 1] == target[j - 2], source[i - 2] == target[j - 1] {
          current[j] = min(current[j], twoBack[j - 2] + 1)
        }
      }
      (twoBack, previous, current) = (previous, current, twoBack)
    }
    return previous[target.count]
  }
}
