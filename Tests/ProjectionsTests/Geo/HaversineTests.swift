import Foundation
import Testing

@testable import Projections

@Suite struct HaversineTests {
  private let radius = 3958.8

  @Test func earthRadiusIsTheMeanRadiusInMiles() {
    #expect(Haversine.earthRadiusMiles == 3958.8)
  }

  @Test(arguments: [
    GeoPoint(latitude: 0, longitude: 0), GeoPoint(latitude: 51.5, longitude: -0.12),
    GeoPoint(latitude: 90, longitude: 45), GeoPoint(latitude: -33.9, longitude: 180),
  ])
  func samePointIsZeroMilesAway(point: GeoPoint) {
    #expect(Haversine.distanceInMiles(from: point, to: point) == 0)
  }

  @Test func polesAreHalfACircumferenceApart() {
    let distance = Haversine.distanceInMiles(
      from: GeoPoint(latitude: 90, longitude: 0), to: GeoPoint(latitude: -90, longitude: 0))
    #expect(abs(distance - Double.pi * radius) < 1e-9)
  }

  @Test func antipodalPointsOnTheEquatorAreHalfACircumferenceApart() {
    let distance = Haversine.distanceInMiles(
      from: GeoPoint(latitude: 0, longitude: -30), to: GeoPoint(latitude: 0, longitude: 150))
    #expect(abs(distance - Double.pi * radius) < 1e-9)
  }

  /// Near antipodes asin is ill-conditioned: one rounding in the haversine moves the result
  /// by up to about 1e-4 mi (15 cm), never past half a circumference.
  @Test func antipodalPointsOffTheAxesAreHalfACircumferenceApartWithinAFoot() {
    let distance = Haversine.distanceInMiles(
      from: GeoPoint(latitude: 40, longitude: -74), to: GeoPoint(latitude: -40, longitude: 106))
    #expect(distance <= Double.pi * radius)
    #expect(distance > Double.pi * radius - 2e-4)
  }

  @Test func equatorToPoleIsAQuarterMeridian() {
    let distance = Haversine.distanceInMiles(
      from: GeoPoint(latitude: 0, longitude: 12), to: GeoPoint(latitude: 90, longitude: 12))
    #expect(abs(distance - Double.pi / 2 * radius) < 1e-9)
  }

  @Test func pointsAcrossTheAntimeridianAreClose() {
    // 0.0002 degrees of longitude on the equator.
    let distance = Haversine.distanceInMiles(
      from: GeoPoint(latitude: 0, longitude: 179.9999),
      to: GeoPoint(latitude: 0, longitude: -179.9999))
    #expect(abs(distance - 0.0002 * Double.pi / 180 * radius) < 1e-9)
  }

  @Test func longitude180AndMinus180AreTheSameMeridian() {
    let distance = Haversine.distanceInMiles(
      from: GeoPoint(latitude: 10, longitude: 180), to: GeoPoint(latitude: 10, longitude: -180))
    #expect(distance < 1e-9)
  }

  /// Rosetta Code's Haversine task: Nashville (BNA) to Los Angeles (LAX) is
  /// 2887.2599506071106 km with R = 6372.8 km; the same central angle with R = 3958.8 mi.
  @Test func nashvilleToLosAngelesMatchesThePublishedDistance() {
    let distance = Haversine.distanceInMiles(
      from: GeoPoint(latitude: 36.12, longitude: -86.67),
      to: GeoPoint(latitude: 33.94, longitude: -118.40))
    let published = 2887.2599506071106 / 6372.8 * radius
    #expect(abs(distance - published) < 1e-9)
    #expect(abs(distance - 1793.5734202334) < 1e-9)
  }

  /// Ed Williams' Aviation Formulary: LAX (33°57'N, 118°24'W) to JFK (40°38'N, 73°47'W) is
  /// 0.623585 radians (published to six digits).
  @Test func losAngelesToNewYorkMatchesThePublishedAngle() {
    let distance = Haversine.distanceInMiles(
      from: GeoPoint(latitude: 33 + 57 / 60.0, longitude: -(118 + 24 / 60.0)),
      to: GeoPoint(latitude: 40 + 38 / 60.0, longitude: -(73 + 47 / 60.0)))
    #expect(abs(distance / radius - 0.623585) < 1e-6)
  }

  @Test func distanceIsSymmetric() {
    var generator = SplitMix64(seed: TestSeed.make(fallback: 0x5EED_0001))
    for _ in 0..<1000 {
      let start = uniformPoint(using: &generator)
      let end = uniformPoint(using: &generator)
      #expect(
        Haversine.distanceInMiles(from: start, to: end)
          == Haversine.distanceInMiles(from: end, to: start))
    }
  }

  /// An independent formula: the angle between unit vectors as atan2(|a × b|, a · b), which is
  /// well conditioned at every distance.
  @Test func randomPairsAgreeWithTheVectorFormula() {
    let seed = TestSeed.make(fallback: 0x5EED_0002)
    var generator = SplitMix64(seed: seed)
    for trial in 0..<2000 {
      let start = uniformPoint(using: &generator)
      // Every scale of distance, from millimetres to nearly antipodal.
      let end =
        trial % 2 == 0
        ? uniformPoint(using: &generator)
        : GeoPoint(
          latitude: Swift.min(
            90, Swift.max(-90, start.latitude + Double.random(in: -1e-4...1e-4, using: &generator))),
          longitude: start.longitude + Double.random(in: -1e-4...1e-4, using: &generator))
      let distance = Haversine.distanceInMiles(from: start, to: end)
      let expected = vectorAngle(start, end) * radius
      #expect(abs(distance - expected) <= 1e-9 * Swift.max(1, expected), "\(start) \(end)")
    }
  }

  private func vectorAngle(_ start: GeoPoint, _ end: GeoPoint) -> Double {
    func vector(_ point: GeoPoint) -> (Double, Double, Double) {
      let latitude = point.latitude * Double.pi / 180
      let longitude = point.longitude * Double.pi / 180
      return (cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
    }
    let a = vector(start)
    let b = vector(end)
    let cross = (a.1 * b.2 - a.2 * b.1, a.2 * b.0 - a.0 * b.2, a.0 * b.1 - a.1 * b.0)
    let crossLength = (cross.0 * cross.0 + cross.1 * cross.1 + cross.2 * cross.2).squareRoot()
    return atan2(crossLength, a.0 * b.0 + a.1 * b.1 + a.2 * b.2)
  }
}
