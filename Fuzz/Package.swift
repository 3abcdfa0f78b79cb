// swift-tools-version:6.0
// The fuzz targets: a package of its own, so that nothing here touches `swift build` or
// `swift test` of the main package. Built and run by `run.sh`, which passes
// `--sanitize fuzzer --sanitize address`; see docs/FUZZING.md.
import Foundation
import PackageDescription

// The main package by path. Its identity is its directory's name, whatever the clone is called.
let mainPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
  .deletingLastPathComponent()
let mainIdentity = mainPackage.lastPathComponent

/// One libFuzzer target: libFuzzer supplies `main`, so the module has none (`-parse-as-library`).
func fuzzTarget(_ name: String, _ products: [String]) -> Target {
  .executableTarget(
    name: name,
    dependencies: ["FuzzSupport"] + products.map { .product(name: $0, package: mainIdentity) },
    swiftSettings: [.unsafeFlags(["-parse-as-library"])])
}

let package = Package(
  name: "ReplayFuzz",
  platforms: [.macOS(.v15)],
  dependencies: [.package(path: mainPackage.path)],
  targets: [
    .target(name: "FuzzSupport"),
    fuzzTarget("FuzzJSON", ["Events"]),
    fuzzTarget("FuzzPayload", ["Events"]),
    fuzzTarget("FuzzLine", ["Events", "Engine"]),
    fuzzTarget("FuzzImport", ["Events", "Importers"]),
  ],
  swiftLanguageModes: [.v6]
)
