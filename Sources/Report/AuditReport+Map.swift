import Events
import Foundation
import Projections

extension AuditReport {
  /// The locations on a map: an equirectangular projection fitted to where they are (scaled by
  /// the cosine of the middle latitude so shapes keep their proportions there), a graticule,
  /// every location as a dot (an even sample beyond `limits.mapPoints`), and for the first
  /// `limits.mapLinks` locations by name, links to their nearest neighbours with their miles.
  func mapSection(_ page: inout HTMLText, locations: [LocationListing]) {
    let limits = request.limits
    page.raw(
      "<section id=\"map\" data-locations=\"\(locations.count)\"><h2>Map of the locations</h2>")
    guard !locations.isEmpty else {
      page.raw("<p class=\"note\">No locations at the report's point.</p></section>\n")
      return
    }
    let projection = MapProjection(fitting: locations.map(\.location.coordinate))
    let stride = max(1, (locations.count + limits.mapPoints - 1) / limits.mapPoints)
    let plotted = Swift.stride(from: 0, to: locations.count, by: stride).map { locations[$0] }
    // Links for an even sample too, so that they spread over the map as the locations do.
    let linkStride = max(1, (locations.count + limits.mapLinks - 1) / limits.mapLinks)
    let linked = Swift.stride(from: 0, to: locations.count, by: linkStride).map { locations[$0] }
    let byID = Dictionary(
      locations.map { ($0.location.id, $0.location.coordinate) }, uniquingKeysWith: { a, _ in a })
    var linkCount = 0
    page.raw(
      "<figure><div class=\"scroll\"><svg class=\"map\" viewBox=\"0 0 \(Int(projection.width)) "
        + "\(Int(projection.height))\" role=\"img\" aria-labelledby=\"map-title\">"
        + "<title id=\"map-title\">")
    page.text(
      "\(locations.count) locations, \(plotted.count) plotted, nearest neighbours of "
        + "\(linked.count) linked")
    page.raw("</title>")
    landPath(&page, projection: projection)
    page.raw("<g class=\"grat\">")
    for line in projection.graticule() {
      page.raw(
        "<line x1=\"\(HTMLText.number(line.0.x))\" y1=\"\(HTMLText.number(line.0.y))\" "
          + "x2=\"\(HTMLText.number(line.1.x))\" y2=\"\(HTMLText.number(line.1.y))\"/>")
    }
    page.raw("</g>")
    for label in projection.graticuleLabels() {
      page.raw(
        "<text class=\"label\" x=\"\(HTMLText.number(label.x))\" y=\"\(HTMLText.number(label.y))\">"
          + "\(label.text)</text>")
    }
    page.raw("<g class=\"links\">")
    for entry in linked {
      let from = projection.point(entry.location.coordinate)
      for neighbor in entry.nearest {
        guard let coordinate = byID[neighbor.id] else { continue }
        // A neighbour across the antimeridian is drawn the short way, off the map's edge.
        let to = projection.point(
          coordinate, nearLongitude: entry.location.coordinate.longitude)
        linkCount += 1
        page.raw(
          "<line class=\"link\" x1=\"\(HTMLText.number(from.x))\" y1=\"\(HTMLText.number(from.y))\" "
            + "x2=\"\(HTMLText.number(to.x))\" y2=\"\(HTMLText.number(to.y))\"><title>")
        page.raw(
          HTMLText.isolatedPlainText(entry.location.name) + " → "
            + HTMLText.isolatedPlainText(neighbor.name) + ": "
            + HTMLText.escaped(neighbor.distanceText) + " mi")
        page.raw("</title></line>")
      }
    }
    page.raw("</g><g class=\"points\">")
    for entry in plotted {
      let point = projection.point(entry.location.coordinate)
      page.raw(
        "<circle class=\"pt\" cx=\"\(HTMLText.number(point.x))\" cy=\"\(HTMLText.number(point.y))\" "
          + "r=\"\(plotted.count > 500 ? "1.6" : "3")\"><title>")
      page.raw(
        HTMLText.isolatedPlainText(entry.location.name) + " "
          + HTMLText.escaped("(\(entry.location.coordinate))"))
      page.raw("</title></circle>")
    }
    page.raw("</g>")
    // Few enough to name on the map itself.
    if plotted.count <= Self.namedPointLimit {
      page.raw("<g class=\"names\">")
      for entry in plotted {
        let point = projection.point(entry.location.coordinate)
        page.raw(
          "<text class=\"label\" x=\"\(HTMLText.number(point.x + 5))\" "
            + "y=\"\(HTMLText.number(point.y - 4))\">")
        page.raw(HTMLText.isolatedPlainText(entry.location.name) + "</text>")
      }
      page.raw("</g>")
    }
    page.raw("</svg></div><figcaption class=\"note\" data-links=\"\(linkCount)\">")
    var caption =
      "Equirectangular projection, graticule every \(HTMLText.number(projection.step)) degrees. "
      + "\(HTMLText.count(plotted.count)) of \(HTMLText.count(locations.count)) locations plotted"
    if stride > 1 { caption += " (every \(stride)th, by name)" }
    caption += "; \(HTMLText.count(linkCount)) nearest-neighbour links"
    if linked.count < locations.count {
      caption += " for \(HTMLText.count(linked.count)) of them (every \(linkStride)th by name; "
      caption += "more would hide the map)"
    }
    caption += ". Hover a dot or a link for its name and miles. Land: Natural Earth 1:110m "
    caption += "countries (public domain), simplified."
    page.text(caption)
    page.raw("</figcaption></figure></section>\n")
  }
}

extension AuditReport {
  /// The land within the map's bounds, as one SVG path.
  fileprivate func landPath(_ page: inout HTMLText, projection: MapProjection) {
    var path = ""
    for ring in Self.landRings {
      // Only rings whose bounds meet the map's.
      guard let west = ring.map(\.longitude).min(), let east = ring.map(\.longitude).max(),
        let south = ring.map(\.latitude).min(), let north = ring.map(\.latitude).max(),
        west <= projection.east, east >= projection.west, south <= projection.north,
        north >= projection.south
      else { continue }
      for (index, point) in ring.enumerated() {
        let at = projection.point(latitude: point.latitude, longitude: point.longitude)
        path += (index == 0 ? "M" : "L") + HTMLText.number(at.x) + "," + HTMLText.number(at.y)
      }
      path += "Z"
    }
    guard !path.isEmpty else { return }
    page.raw("<path class=\"land\" d=\"" + path + "\"><title>land</title></path>")
  }

  /// Up to this many plotted locations are named on the map.
  static let namedPointLimit = 40
}

/// Longitude and latitude to the map's coordinates.
struct MapProjection {
  let west: Double
  let east: Double
  let south: Double
  let north: Double
  /// Horizontal degrees shrink by this factor (the middle latitude's cosine).
  let squeeze: Double
  let scale: Double
  let width = 960.0
  let height: Double
  /// The graticule's spacing in degrees.
  let step: Double

  init(fitting coordinates: [Coordinate]) {
    var west = coordinates.map(\.longitude).min() ?? -180
    var east = coordinates.map(\.longitude).max() ?? 180
    var south = coordinates.map(\.latitude).min() ?? -90
    var north = coordinates.map(\.latitude).max() ?? 90
    // At least two degrees each way, and a margin of a tenth around.
    let minimum = 2.0
    if east - west < minimum {
      let middle = (east + west) / 2
      west = middle - minimum / 2
      east = middle + minimum / 2
    }
    if north - south < minimum {
      let middle = (north + south) / 2
      south = middle - minimum / 2
      north = middle + minimum / 2
    }
    let marginX = (east - west) / 10
    let marginY = (north - south) / 10
    west = max(-180, west - marginX)
    east = min(180, east + marginX)
    south = max(-90, south - marginY)
    north = min(90, north + marginY)
    self.west = west
    self.east = east
    self.south = south
    self.north = north
    squeeze = max(0.2, cos((north + south) / 2 * .pi / 180))
    scale = width / ((east - west) * squeeze)
    height = min(1400, max(200, (north - south) * scale))
    let span = max(east - west, north - south)
    step = [1.0, 2, 5, 10, 15, 30].first { span / $0 <= 12 } ?? 30
  }

  /// Where a coordinate lands.
  func point(_ coordinate: Coordinate) -> (x: Double, y: Double) {
    (
      (coordinate.longitude - west) * squeeze * scale,
      (north - coordinate.latitude) * (height / (north - south))
    )
  }

  /// Where a coordinate lands, its longitude moved by 360° when that brings it within 180° of
  /// `reference` (a line to it then takes the short way round).
  func point(_ coordinate: Coordinate, nearLongitude reference: Double) -> (x: Double, y: Double) {
    var longitude = coordinate.longitude
    if longitude - reference > 180 { longitude -= 360 }
    if reference - longitude > 180 { longitude += 360 }
    return point(latitude: coordinate.latitude, longitude: longitude)
  }

  /// Where a longitude and latitude land.
  func point(latitude: Double, longitude: Double) -> (x: Double, y: Double) {
    ((longitude - west) * squeeze * scale, (north - latitude) * (height / (north - south)))
  }

  /// The graticule's lines, end to end.
  func graticule() -> [((x: Double, y: Double), (x: Double, y: Double))] {
    var lines: [((x: Double, y: Double), (x: Double, y: Double))] = []
    var longitude = (west / step).rounded(.up) * step
    while longitude <= east {
      lines.append(
        (
          point(latitude: north, longitude: longitude),
          point(latitude: south, longitude: longitude)
        ))
      longitude += step
    }
    var latitude = (south / step).rounded(.up) * step
    while latitude <= north {
      lines.append(
        (point(latitude: latitude, longitude: west), point(latitude: latitude, longitude: east)))
      latitude += step
    }
    return lines
  }

  /// Degree labels along the top and left edges.
  func graticuleLabels() -> [(x: Double, y: Double, text: String)] {
    var labels: [(x: Double, y: Double, text: String)] = []
    var longitude = (west / step).rounded(.up) * step
    while longitude <= east {
      let at = point(latitude: north, longitude: longitude)
      labels.append((at.x + 2, 12, Self.degrees(longitude, positive: "E", negative: "W")))
      longitude += step
    }
    var latitude = (south / step).rounded(.up) * step
    while latitude <= north {
      let at = point(latitude: latitude, longitude: west)
      labels.append((2, at.y - 2, Self.degrees(latitude, positive: "N", negative: "S")))
      latitude += step
    }
    return labels
  }

  static func degrees(_ value: Double, positive: String, negative: String) -> String {
    let rounded = HTMLText.number(abs(value), places: 0)
    return value == 0 ? "0°" : rounded + "°" + (value > 0 ? positive : negative)
  }
}
