// swift-tools-version:6.0
// An app as a Swift developer writes one: it depends on pam_localauth's LocalAuthentication and Security products
// by path and calls them as on Apple platforms. `make test` builds it (statically linked, so that an unprivileged
// test user can run it from a staged copy) and Tests/IntegrationTests/AppClientTests.swift runs it as ordinary
// users in a pseudo-terminal against the setuid localauth-helper.
import Foundation
import PackageDescription

// A path dependency's identity is its folder's name, which is wherever the clone was put.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../..").standardized
let identity = root.lastPathComponent.lowercased()

let package = Package(
  name: "AppClient",
  platforms: [.macOS(.v13)],
  dependencies: [.package(path: root.path)],
  targets: [
    .executableTarget(
      name: "la-app",
      dependencies: [
        .product(name: "LocalAuthentication", package: identity),
        .product(name: "Security", package: identity),
      ])
  ]
)
