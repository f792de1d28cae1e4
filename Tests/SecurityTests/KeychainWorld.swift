import Foundation
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthTesting
import LocalAuthentication
import Security
import Testing

/// One user's world with a real keychain (LocalAuthTestSupport's KeychainFolderWorld: a temporary root-only state
/// folder, a manual clock, a scripted sensor and prompter), with `Security`'s calls evaluating in it.
final class KeychainWorld: KeychainFolderWorld, @unchecked Sendable {
  init(user: String = "alice", limits: KeychainLimits = KeychainLimits()) throws {
    try super.init(template: "/tmp/localauth-keychain.XXXXXX", user: user, seed: 7, limits: limits)
  }

  var configuration: LAContextConfiguration { LAContextConfiguration(dependencies: dependencies, settings: settings, user: user) }

  /// One finger enrolled, the passcode set and entered once: the world of the seed's snippet.
  static func ready(user: String = "alice", limits: KeychainLimits = KeychainLimits()) throws -> KeychainWorld {
    let world = try KeychainWorld(user: user, limits: limits)
    try world.enroll("right-index")
    try world.administration.setPasscode(SecretBytes("1234"), for: try world.userName)
    #expect(try world.enterPasscode("1234") == .success(.passcode))
    return world
  }

  /// Runs `body` with `LAContext()` evaluating in this world.
  func run<T>(_ body: () throws -> T) rethrows -> T {
    try LAContext.$defaultConfiguration.withValue(configuration) { try body() }
  }

  /// The names of the item files in the user's keychain folder.
  var itemFiles: [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: root + "/keychain/" + user)) ?? []).filter { $0.hasPrefix("item-") }.sorted()
  }
}
