import Foundation
import LocalAuthCore
@testable import LocalAuthentication
import Testing

/// An observer that records each call, thread-safely.
final class RecordingObserver: LAEnvironmentObserver, @unchecked Sendable {
  private let lock = NSLock()
  private var calls: [(old: LAEnvironmentState, new: LAEnvironmentState)] = []

  func environment(_ environment: LAEnvironment, stateDidChangeFromOldState oldState: LAEnvironmentState) {
    // Apple: at the moment of the call, `environment.state` already holds the new state.
    let new = environment.state
    lock.withLock { calls.append((oldState, new)) }
  }

  var count: Int { lock.withLock { calls.count } }
  var last: (old: LAEnvironmentState, new: LAEnvironmentState)? { lock.withLock { calls.last } }
}

/// Waits up to `seconds` for `condition`, checking every 10 ms.
func eventually(within seconds: Double = 5, _ condition: () -> Bool) async -> Bool {
  let deadline = Date().addingTimeInterval(seconds)
  while Date() < deadline {
    if condition() { return true }
    try? await Task.sleep(nanoseconds: 10_000_000)
  }
  return condition()
}

@Suite("LAEnvironment")
struct LAEnvironmentTests {
  /// An environment that never polls by itself: tests call `refresh()`.
  func environment(_ world: TestEnvironment) -> LAEnvironment {
    LAEnvironment(configuration: world.configuration, pollInterval: 3600)
  }

  @Test("the state reflects the sensor, the enrollment and the passcode")
  func stateReflectsEnrollment() throws {
    let world = TestEnvironment()
    var state = environment(world).state
    let empty = try #require(state.biometry)
    #expect(empty.biometryType == .touchID)
    #expect(!empty.isEnrolled && !empty.isUsable && !empty.isLockedOut)
    #expect(empty.stateHash.isEmpty)
    #expect(state.userPassword?.isSet == false)
    #expect(state.userPassword?.isUsable == false)
    #expect(state.allMechanisms.count == 2)

    try world.setPasscode()
    state = environment(world).state
    #expect(state.userPassword?.isSet == true)
    #expect(state.userPassword?.isUsable == true)
    #expect(state.biometry?.isEnrolled == false)

    try world.enroll("right-index")
    try world.unlockWithPasscode()
    state = environment(world).state
    let enrolled = try #require(state.biometry)
    #expect(enrolled.isEnrolled && enrolled.isUsable && !enrolled.isLockedOut)
    #expect(enrolled.stateHash == world.context().domainState.biometry.stateHash)
    #expect(enrolled.stateHash.count == 32)
    #expect(enrolled.localizedName == "Touch ID")
  }

  @Test("no sensor: no biometry mechanism, only the passcode")
  func noSensor() throws {
    let world = TestEnvironment(modality: nil)
    try world.setPasscode()
    let state = environment(world).state
    #expect(state.biometry == nil)
    #expect(state.allMechanisms.count == 1)
    #expect(state.userPassword?.isSet == true)
  }

  @Test("five failed matches: biometry is enrolled but locked out and not usable")
  func lockout() async throws {
    let world = try TestEnvironment.ready()
    for _ in 0..<3 { world.impostor() }
    _ = await evaluate(world.context(), .deviceOwnerAuthenticationWithBiometrics)
    for _ in 0..<2 { world.impostor() }
    _ = await evaluate(world.context(), .deviceOwnerAuthenticationWithBiometrics)
    let biometry = try #require(environment(world).state.biometry)
    #expect(biometry.isEnrolled && biometry.isLockedOut && !biometry.isUsable)
  }

  @Test("an observer is called once per change, with the old state, when a poll notices it")
  func observerCalledOnce() throws {
    let world = try TestEnvironment.ready()
    let watched = environment(world)
    let observer = RecordingObserver()
    watched.addObserver(observer)
    #expect(watched.isPolling)
    watched.refresh()
    #expect(observer.count == 0)  // nothing changed

    try world.enroll("left-thumb")
    watched.refresh()
    #expect(observer.count == 1)
    let call = try #require(observer.last)
    #expect(call.old.biometry?.stateHash != call.new.biometry?.stateHash)
    #expect(call.new.biometry?.stateHash == world.context().domainState.biometry.stateHash)
    _ = watched.state
    watched.refresh()
    #expect(observer.count == 1)  // the same change is reported once

    watched.removeObserver(observer)
    #expect(!watched.isPolling)
    try world.unenroll("left-thumb")
    watched.refresh()
    #expect(observer.count == 1)
  }

  @Test("observers are held weakly: polling stops once the last one is gone")
  func weakObservers() async throws {
    let world = try TestEnvironment.ready()
    let watched = LAEnvironment(configuration: world.configuration, pollInterval: 0.02)
    var observer: RecordingObserver? = RecordingObserver()
    watched.addObserver(observer!)
    #expect(watched.isPolling)
    observer = nil
    #expect(await eventually { !watched.isPolling })
    watched.refresh()  // no observer left to call
  }

  @Test("the polling timer notices a change by itself")
  func timerNotices() async throws {
    let world = try TestEnvironment.ready()
    let watched = LAEnvironment(configuration: world.configuration, pollInterval: 0.02)
    let observer = RecordingObserver()
    watched.addObserver(observer)
    try world.enroll("left-thumb")
    #expect(await eventually { observer.count == 1 })
    #expect(observer.last?.new.biometry?.isEnrolled == true)
    watched.removeObserver(observer)
  }

  @Test("currentUser in a task with a default configuration reads that configuration")
  func currentUser() throws {
    let world = TestEnvironment()
    try world.setPasscode()
    let state = LAContext.$defaultConfiguration.withValue(world.configuration) { LAEnvironment.currentUser.state }
    #expect(state.userPassword?.isSet == true)
    #expect(state.biometry?.isEnrolled == false)
    let typed: LAEnvironment.State = state
    #expect(typed.allMechanisms.first is LAEnvironment.MechanismBiometry)
  }
}
