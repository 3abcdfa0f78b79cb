// swift-tools-version:6.0
import PackageDescription

// A headless contacts home screen that follows a log: the example of docs/LIBRARY.md, depending
// on the engine by path as an app would.
let package = Package(
  name: "ContactsScreen",
  platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
  dependencies: [.package(name: "Replay", path: "../..")],
  targets: [
    .executableTarget(
      name: "ContactsScreen", dependencies: [.product(name: "Engine", package: "Replay")])
  ],
  swiftLanguageModes: [.v6]
)
