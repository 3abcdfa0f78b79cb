/// The source parsers as the fuzz targets reach them. Fuzz/ is a package of its own, so it sees
/// neither `SourceParser` nor `ImportKind` (package); it imports this with
/// `@_spi(Fuzzing) import Importers`, and each call goes straight to `SourceParser.parse`.
@_spi(Fuzzing)
public enum FuzzingSourceParser {
  /// The kinds of source `replay import` reads (its `--kind` values).
  public static var kinds: [String] { ImportKind.allCases.map(\.rawValue) }

  /// Parses `bytes` as a source of `kind`, as `replay import` does: the number of records, or
  /// the `ImportError` that refuses them.
  /// - Precondition: `kind` is one of `kinds`.
  public static func parse(_ bytes: [UInt8], kind: String) -> Result<Int, any Error> {
    guard let kind = ImportKind(rawValue: kind) else {
      preconditionFailure("'\(kind)' is not one of \(kinds)")
    }
    do {
      return .success(
        try SourceParser.parse(bytes, kind: kind, sourceName: "fuzz-input").records.count)
    } catch {
      return .failure(error)
    }
  }
}
