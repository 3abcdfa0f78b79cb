import Testing

@testable import Projections

@Test func placeholder() {}
