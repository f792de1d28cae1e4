// swift-tools-version:6.0
import PackageDescription

/// pam_localauth: Apple's LocalAuthentication semantics on Linux, as a PAM module written in Swift.
let package = Package(
  name: "pam_localauth",
  platforms: [.macOS(.v13)],
  products: [
    .library(name: "pam_localauth", type: .dynamic, targets: ["PAMLocalAuth"]),
    .library(name: "LocalAuthentication", targets: ["LocalAuthentication"]),
    // Apple's keychain calls (SecItemAdd, SecItemCopyMatching, SecAccessControlCreateWithFlags …) over the core's keychain.
    .library(name: "Security", targets: ["Security"]),
    // Test doubles for the core's side effects (clock, sensor, prompter, store, log), for our tests and API users.
    .library(name: "LocalAuthTesting", targets: ["LocalAuthTesting"]),
    .executable(name: "localauthctl", targets: ["localauthctl"]),
    .executable(name: "PAMHarness", targets: ["PAMHarness"]),
    .executable(name: "localauth-bench", targets: ["localauth-bench"]),
    .executable(name: "localauth-fuzz", targets: ["localauth-fuzz"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
  ],
  targets: [
    .systemLibrary(name: "CPAM", pkgConfig: "pam", providers: [.apt(["libpam0g-dev"])]),
    // libxcrypt is opened on first use (Sources/CCrypt/shim.h), not linked: only its header is needed here.
    .systemLibrary(name: "CCrypt", providers: [.apt(["libcrypt-dev"])]),
    // The C library calls the core makes (Embedded Swift has no Glibc module): headers and a few shims.
    .systemLibrary(name: "CSyscalls"),
    .systemLibrary(name: "CPeerCredentials"),
    // libsystemd's sd-bus, for sensor=fprintd: opened on first use (Sources/CDBus/shim.h), not linked.
    .systemLibrary(name: "CDBus"),
    // OpenSSL's libcrypto (AES-256-GCM, X25519, P-256, SHA-256) for the keychain: opened on first use, each call
    // typed by OpenSSL's own headers (libssl-dev; Sources/CLibCrypto/library.h).
    .systemLibrary(name: "CLibCrypto", providers: [.apt(["libssl-dev"])]),
    // tpm2-tss (ESAPI) for sealing keychain keys to the TPM: opened on first use, typed by tpm2-tss's headers
    // (libtss2-dev; Sources/CTPM/library.h).
    .systemLibrary(name: "CTPM", providers: [.apt(["libtss2-dev"])]),
    .target(name: "LocalAuthCore", dependencies: ["CCrypt", "CSyscalls", "CPeerCredentials", "CDBus", "CLibCrypto", "CTPM"]),
    .target(name: "LocalAuthentication", dependencies: ["LocalAuthCore"]),
    .target(name: "Security", dependencies: ["LocalAuthentication", "LocalAuthCore"]),
    .target(name: "LocalAuthTesting", dependencies: ["LocalAuthCore"]),
    // The PAM glue. The installed pam_localauth.so is built from these files in Embedded Swift by the Makefile;
    // this target builds them in ordinary Swift for the tests.
    .target(name: "PAMLocalAuth", dependencies: ["CPAM", "CSyscalls", "LocalAuthCore"], exclude: ["link"]),
    .executableTarget(
      name: "localauthctl",
      dependencies: ["LocalAuthCore", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
    .executableTarget(name: "PAMHarness", dependencies: ["CPAM"]),
    // The setuid helper for unprivileged applications (docs/HELPER.md). Installed from the Makefile's Embedded build;
    // SwiftPM builds it in ordinary Swift for the tests' type-checking.
    .executableTarget(
      name: "localauth-helper", dependencies: ["LocalAuthCore", "CSyscalls", "CPeerCredentials"], linkerSettings: [.linkedLibrary("m")]),
    // Benchmarks: `make bench` (docs/PERFORMANCE.md).
    .executableTarget(name: "localauth-bench", dependencies: ["LocalAuthCore", "CPAM", "LocalAuthTestSupport"]),
    // make bench's floor, built in Embedded Swift by the Makefile like the module; here it is only type-checked.
    .target(name: "BenchFloorModule", dependencies: ["CPAM", "CSyscalls"]),
    // libFuzzer targets for the option parser, the state decoder and the helper protocol: `make fuzz`.
    .executableTarget(name: "localauth-fuzz", dependencies: ["LocalAuthCore", "LocalAuthTesting"]),
    // The tiers' and the benchmark's shared setup (temporary folders, the keychain world, the private D-Bus bus);
    // internal test infrastructure, no Foundation (the benchmark does not link it). docs/ARCHITECTURE.md.
    .target(name: "LocalAuthTestSupport", dependencies: ["LocalAuthCore", "LocalAuthTesting"], path: "Tests/LocalAuthTestSupport"),
    .testTarget(name: "LocalAuthCoreTests", dependencies: ["LocalAuthCore", "LocalAuthTesting", "LocalAuthTestSupport"], exclude: ["Fixtures"]),
    .testTarget(name: "LocalAuthenticationTests", dependencies: ["LocalAuthentication", "LocalAuthCore", "LocalAuthTesting", "LocalAuthTestSupport"]),
    .testTarget(name: "SecurityTests", dependencies: ["Security", "LocalAuthentication", "LocalAuthCore", "LocalAuthTesting", "LocalAuthTestSupport"]),
    .testTarget(name: "PAMLocalAuthTests", dependencies: ["PAMLocalAuth", "LocalAuthCore", "CPAM"]),
    .testTarget(name: "localauthctlTests", dependencies: ["localauthctl", "LocalAuthCore", "LocalAuthTesting", "LocalAuthTestSupport"]),
    .testTarget(name: "IntegrationTests", dependencies: ["LocalAuthCore", "LocalAuthTesting", "LocalAuthTestSupport"]),
    .testTarget(name: "ReliabilityTests", dependencies: ["LocalAuthCore", "LocalAuthTesting", "LocalAuthTestSupport"], exclude: ["Fixtures"]),
  ]
)
