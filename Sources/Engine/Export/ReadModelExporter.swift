import Events
import Projections

/// Writes read models back out as files: the apps' source formats, so an export imports again
/// (`replay import`) to the same read model.
///
/// | model | format | layout |
/// |---|---|---|
/// | `zipcodes` | `plist` (default), `json` | `{"States": [{"Name", "ZipCodes"}]}`, the documented layout |
/// | `locations` | `geojson` (default), `json` | a GeoJSON `FeatureCollection` of `Point` features |
/// | `contacts` | `json` | the array of `contacts-v3.json` |
/// | `observations` | `json` | `{"status": "ok", "observations": [...]}`, dates in ISO 8601 UTC |
/// | `animals` | `json` | the Taipei Zoo open data's `{"result": {"results": [...]}}`, users' animals as `replay_inserted` records |
///
/// JSON is indented with two spaces (see `PrettyJSON`); every file ends with a newline. The
/// same state always gives the same bytes. Each model's layout and order is documented on its
/// function.
package enum ReadModelExporter {
  /// Model `name` of `models` in `format`.
  /// - Throws: `ExportError.unrepresentable` when a value cannot be written in the format.
  /// - Precondition: `format` is one of `ExportFormat.formats(forModel: name)`.
  /// - Parameter animalRecords: for the animals, each imported animal's source record as last
  ///   imported (``LogReader/animalRecords(for:through:)`` reads them from the log); the
  ///   catalogue keeps only what its screen shows.
  public static func export(
    _ models: ReadModels, model name: String, format: ExportFormat,
    animalRecords: [AnimalID: AnimalRecord] = [:]
  ) throws(ExportError) -> [UInt8] {
    precondition(
      ExportFormat.formats(forModel: name).contains(format),
      "'\(name)' does not export as \(format.rawValue)")
    switch (name, format) {
    case (ZipCodeList.name, .plist): return try propertyList(models.zipCodes)
    case (ZipCodeList.name, _): return json(models.zipCodes)
    case (LocationList.name, _): return geoJSON(models.locations)
    case (ContactList.name, _): return json(models.contacts)
    case (ObservationList.name, _): return json(models.observations)
    default: return try zooSource(models.animals, records: animalRecords)
    }
  }

  public static func count(_ models: ReadModels, model name: String) -> Int {
    models.model(named: name)?.count ?? 0
  }
}
