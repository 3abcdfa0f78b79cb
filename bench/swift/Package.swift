// swift-tools-version:6.0
// The benchmark's own programs: the floor (a memchr line split), the naive baseline (Foundation's
// JSONDecoder per line), the library's import and append paths against raw write + fdatasync,
// and the nearest-neighbour index. Not part of the main package: bench/run.sh builds it, with
// the main package as a dependency by path.
import PackageDescription

let package = Package(
  name: "ReplayBench",
  platforms: [.macOS(.v15)],
  dependencies: [.package(name: "Replay", path: "../..")],
  targets: [
    .executableTarget(
      name: "replay-bench",
      dependencies: [
        .product(name: "Engine", package: "Replay"),
        .product(name: "Projections", package: "Replay"),
      ])
  ],
  swiftLanguageModes: [.v6]
)
