import Testing

@testable import Events

@Test func placeholder() {}
