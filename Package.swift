// swift-tools-version:6.0
import PackageDescription

/// pam_localauth: Apple's LocalAuthentication semantics on Linux, as a PAM module written in Swift.
let package = Package(
  name: "pam_localauth",
  platforms: [.macOS(.v13)],
  products: [
    .library(name: "pam_localauth", type: .dynamic, targets: ["PAMLocalAuth"]),
    .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
    .executable(name: "localauthctl", targets: ["localauthctl"]),
    .executable(name: "PAMHarness", targets: ["PAMHarness"]),
    .executable(name: "localauth-bench", targets: ["localauth-bench"]),
    // make bench's floor: a minimal Swift PAM module linked like pam_localauth (never installed).
    .library(name: "bench_floor", type: .dynamic, targets: ["BenchFloorModule"]),
    .executable(name: "localauth-fuzz", targets: ["localauth-fuzz"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
  ],
  targets: [
    .systemLibrary(name: "CPAM", pkgConfig: "pam", providers: [.apt(["libpam0g-dev"])]),
    // libxcrypt is opened on first use (Sources/CCrypt/shim.h), not linked: only its header is needed here.
    .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
    .target(name: "LocalAuthCore", dependencies: ["CCrypt"]),
    .target(name: "LocalAuthentication", dependencies: ["LocalAuthCore"]),
    // The installable module's link-time C pieces (the Makefile's module target turns them on).
    .target(name: "ModuleLink"),
    .target(name: "PAMLocalAuth", dependencies: ["CPAM", "LocalAuthCore", "ModuleLink"]),
    .executableTarget(
      name: "localauthctl",
      dependencies: ["LocalAuthCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
    .executableTarget(name: "PAMHarness", dependencies: ["CPAM"]),
    // Benchmarks (issue 5): `make bench`.
    .executableTarget(name: "localauth-bench", dependencies: ["LocalAuthCore", "CPAM"]),
    .target(name: "BenchFloorModule", dependencies: ["CPAM", "ModuleLink"]),
    // libFuzzer targets for the option parser and the state decoder (issue 4): `make fuzz`.
    .executableTarget(name: "localauth-fuzz", dependencies: ["LocalAuthCore"]),
    .testTarget(name: "LocalAuthCoreTests", dependencies: ["LocalAuthCore"]),
    .testTarget(name: "LocalAuthenticationTests", dependencies: ["LocalAuthentication", "LocalAuthCore"]),
    .testTarget(name: "PAMLocalAuthTests", dependencies: ["PAMLocalAuth", "LocalAuthCore", "CPAM"]),
    .testTarget(name: "localauthctlTests", dependencies: ["localauthctl", "LocalAuthCore"]),
    .testTarget(name: "IntegrationTests", dependencies: ["LocalAuthCore"]),
    .testTarget(name: "ReliabilityTests", dependencies: ["LocalAuthCore"], exclude: ["Fixtures"]),
  ]
)
