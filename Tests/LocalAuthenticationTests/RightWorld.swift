import Foundation
import LocalAuthCore
import LocalAuthTestSupport
import LocalAuthTesting
import LocalAuthentication
import Testing

/// One user's world for persisted rights (LocalAuthTestSupport's KeychainFolderWorld: a temporary root-only state
/// folder with a real keychain, a manual clock, a scripted sensor and prompter); every call runs with `LAContext`
/// and `LARightStore` evaluating in it (`LAContext.defaultConfiguration`).
final class RightWorld: KeychainFolderWorld, @unchecked Sendable {
  init() throws {
    try super.init(template: "/tmp/localauth-rights.XXXXXX", user: "alice", seed: 11)
  }

  var configuration: LAContextConfiguration { LAContextConfiguration(dependencies: dependencies, settings: settings, user: user) }

  /// One finger enrolled, the passcode 1234 set and entered once.
  static func ready() throws -> RightWorld {
    let world = try RightWorld()
    try world.enroll("right-index")
    try world.administration.setPasscode(SecretBytes("1234"), for: try world.userName)
    try world.unlockWithPasscode()
    return world
  }

  /// Enters the passcode once through the core (after an enrolment change, biometry needs it first: rule 6).
  func unlockWithPasscode() throws {
    #expect(try enterPasscode("1234") == .success(.passcode))
  }

  /// Runs `body` with `LAContext()`, `LARight()` and `LARightStore.shared` evaluating in this world.
  func run<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
    try await LAContext.$defaultConfiguration.withValue(configuration) { try await body() }
  }

  /// The user's items in the store's reserved access group.
  var rightItems: [KeychainItem] {
    get throws { try keychain.items(for: try userName).filter { $0.accessGroup == RightStore.accessGroup } }
  }
}
