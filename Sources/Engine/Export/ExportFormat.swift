import Projections

/// The file formats read models export to.
package enum ExportFormat: String, Sendable, Equatable, Hashable, CaseIterable {
  /// JSON: the source schema of the model's app (zip codes in the plist's layout, locations as
  /// GeoJSON), or the read model's own JSON for the zoo.
  case json
  /// An XML property list (zip codes only).
  case plist
  /// A GeoJSON `FeatureCollection` (locations only).
  case geojson

  /// The formats model `name` exports to, the first being its source's format (the default).
  /// - Returns: an empty list for a name that is no read model.
  public static func formats(forModel name: String) -> [ExportFormat] {
    switch name {
    case ZipCodeList.name: [.plist, .json]
    case LocationList.name: [.geojson, .json]
    case ContactList.name, ObservationList.name, AnimalCatalog.name: [.json]
    default: []
    }
  }

  /// Whether model `name`'s export can be imported again (`replay import`) to give the same
  /// read model: every model's (the zoo's since the catalogue keeps each source record).
  public static func isReimportable(model name: String) -> Bool {
    formats(forModel: name).isEmpty == false
  }
}
