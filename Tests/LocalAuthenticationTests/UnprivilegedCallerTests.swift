import Foundation
import LocalAuthCore
import LocalAuthTesting
import LocalAuthentication
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs `body` on the current thread with file-system uid `uid` (Linux setfsuid is per thread, and a
/// non-zero fsuid drops root's file capabilities), then restores uid 0.
func withFileSystemUser<T>(_ uid: UInt32, _ body: () throws -> T) rethrows -> T {
  typealias SetFSUID = @convention(c) (UInt32) -> Int32
  guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "setfsuid") else { return try body() }
  let setfsuid = unsafeBitCast(symbol, to: SetFSUID.self)
  _ = setfsuid(uid)
  defer { _ = setfsuid(0) }
  return try body()
}

@Suite("A caller that may not read the state")
struct UnprivilegedCallerTests {
  @Test(
    "real root-owned 0700 state read as nobody: canEvaluate fails with biometryNotAvailable, never true",
    .enabled(if: geteuid() == 0, "needs root to create a root-owned state folder"))
  func realPermissionDenied() throws {
    let base = FileManager.default.temporaryDirectory.appendingPathComponent("la-unpriv-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: base) }
    let store = FileStateStore(root: base + "/state")
    let clock = ManualClock()
    var settings = EvaluationSettings()
    settings.hasher = PasscodeHasher(cost: 1)
    try Administration(store: store, clock: clock, settings: settings).setPasscode(SecretBytes("1234"), for: try UserName("alice"))
    let configuration = LAContextConfiguration(
      dependencies: Dependencies(
        clock: clock, store: store, sensor: ScriptedSensor(clock: clock), prompter: ScriptedPrompter(), log: MemoryLog()),
      settings: settings, user: "alice")

    // As root the state is readable and policy 2 can be evaluated.
    #expect(LAContext(configuration: configuration).canEvaluatePolicy(.deviceOwnerAuthentication, error: nil))

    let (allowed, code, detail, available) = withFileSystemUser(65534) {
      let context = LAContext(configuration: configuration)
      var error: NSError?
      let allowed = context.canEvaluatePolicy(.deviceOwnerAuthentication, error: &error)
      let facade = BiometricAuthenticationFacade(configuration: configuration, policy: .deviceOwnerAuthentication)
      return (allowed, error?.code, error?.userInfo[NSDebugDescriptionErrorKey] as? String, facade.isAuthenticationAvailable)
    }
    #expect(!allowed)
    #expect(code == LAError.biometryNotAvailable.rawValue)
    #expect(detail?.contains("Permission denied") == true)
    #expect(!available)
  }
}
