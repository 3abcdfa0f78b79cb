import Testing

@testable import Engine

@Test func placeholder() {}
