// swift-tools-version:6.0
import PackageDescription

let package = Package(
  name: "Replay",
  // Mutex (Synchronization) needs the 2024 releases of every Apple platform.
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  products: [
    .library(name: "Events", targets: ["Events"]),
    .library(name: "Projections", targets: ["Projections"]),
    .library(name: "Engine", targets: ["Engine"]),
    .library(name: "Importers", targets: ["Importers"]),
    .library(name: "Report", targets: ["Report"]),
    .library(name: "Generator", targets: ["Generator"]),
    .library(name: "Postgres", targets: ["Postgres"]),
    .executable(name: "replay", targets: ["replay"]),
  ],
  targets: [
    // CRC-32C with the CPU's instructions; C because Swift cannot reach them. Not a product.
    .target(name: "CCRC32C"),
    .target(name: "Events", dependencies: ["CCRC32C"]),
    .target(name: "Projections", dependencies: ["Events"]),
    .target(name: "Engine", dependencies: ["Events", "Projections"]),
    // The tools around the engine, which the apps that link Engine do not need.
    .target(name: "Importers", dependencies: ["Events", "Engine"]),
    .target(name: "Report", dependencies: ["Events", "Projections", "Engine"]),
    // The Taipei Zoo seed file is compiled in (a link to eventlogs/seed-data, not a copy).
    .target(
      name: "Generator", dependencies: ["Events", "Engine", "Importers"],
      resources: [.embedInCode("Resources/taipei-zoo-animals.json")]),
    // PostgreSQL as a replica and as the store; libpq is loaded at run time (nothing linked).
    .target(name: "Postgres", dependencies: ["Engine"]),
    .executableTarget(
      name: "replay", dependencies: ["Engine", "Importers", "Report", "Generator", "Postgres"]),
    // What the test targets share (seeded generator, temporary directories, seed data).
    .target(name: "ReplayTestSupport", path: "Tests/ReplayTestSupport"),
    .testTarget(name: "EventsTests", dependencies: ["Events", "ReplayTestSupport"]),
    .testTarget(name: "ProjectionsTests", dependencies: ["Projections", "ReplayTestSupport"]),
    .testTarget(
      name: "EngineTests",
      dependencies: [
        "Engine", "Importers", "Report", "Generator", "Postgres", "ReplayTestSupport",
      ]),
    // End-to-end tests: they run the built `replay` binary, so they depend on it to get it built.
    // Goldens are read by path (`#filePath`), not bundled.
    .testTarget(
      name: "ReplayTests", dependencies: ["replay", "Engine", "ReplayTestSupport"],
      exclude: ["Goldens"]),
  ],
  swiftLanguageModes: [.v6]
)

for target in package.targets {
  var settings = target.swiftSettings ?? []
  settings.append(.enableUpcomingFeature("ExistentialAny"))
  settings.append(.enableUpcomingFeature("MemberImportVisibility"))
  target.swiftSettings = settings
}
