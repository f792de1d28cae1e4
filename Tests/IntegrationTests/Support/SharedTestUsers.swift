import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The end-to-end suites' shared test users. Several suites use the same fixture users (LoginSuTests,
/// TouchDeliveryTests, ShippedStackTests and IntentE2ETests share LoginSuTests' and SudoTests' users;
/// LockHostageTests and LockStopSweepTests share theirs) and run in parallel with each other: one fixture at a time
/// holds a set, through a flock on /tmp/NAME.lock, which also orders two test runs on one machine.
enum SharedTestUsers {
  /// Waits (at most 10 minutes) for the flock of the set `name`, on an open file description of its own; closing
  /// the returned descriptor lets the next fixture have the users.
  static func lock(_ name: String = "localauth-e2e-users") throws -> Int32 {
    let path = "/tmp/\(name).lock"
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
    guard fd >= 0 else { throw LoginSuTests.SetupError.command("open \(path)", errno, "") }
    let deadline = Date().addingTimeInterval(600)
    while flock(fd, LOCK_EX | LOCK_NB) != 0 {
      guard Date() < deadline else {
        close(fd)
        throw LoginSuTests.SetupError.command("flock \(path)", errno, "")
      }
      usleep(50_000)
    }
    return fd
  }
}

extension Trait where Self == ConditionTrait {
  /// The end-to-end suites need the built module and localauthctl named in the environment (make test does).
  static var builtModuleAndTool: Self {
    .enabled(
      if: LoginSuEnvironment.configured,
      "Set LOCALAUTH_MODULE and LOCALAUTH_CTL to the built pam_localauth.so and localauthctl (make test does).")
  }
}
