import Foundation
import LocalAuthCore
import LocalAuthentication
import Testing

@Suite("touchIDAuthenticationAllowableReuseDuration")
struct ReuseTests {
  /// A ready world where the user just unlocked the login session with a finger (the match apps may reuse).
  func matched() async throws -> TestEnvironment {
    let environment = try TestEnvironment.ready()
    try environment.unlockSessionWithFinger()
    return environment
  }

  @Test("an app's own match is never reused, not even by the same app: only a session unlock is (Apple, rule 7)")
  func inAppMatchNotReused() async throws {
    let environment = try TestEnvironment.ready()
    environment.touch()
    let first = environment.sessionContext()
    let (success, _) = await evaluate(first, .deviceOwnerAuthenticationWithBiometrics)
    #expect(success)
    #expect(try environment.record.reuseStamp(for: .app(processID: getpid())) != nil)
    let context = environment.sessionContext()
    context.touchIDAuthenticationAllowableReuseDuration = 300
    environment.scripted.enqueue(.cancel)
    let (_, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(error) == .userCancel)
  }

  @Test("an app in another login session does not reuse the session unlock")
  func otherLoginSession() async throws {
    let environment = try await matched()
    let context = environment.context()
    context.touchIDAuthenticationAllowableReuseDuration = 300
    environment.scripted.enqueue(.cancel)
    let (_, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(error) == .userCancel)
  }

  @Test("default 0: every evaluation needs a new scan")
  func defaultIsZero() async throws {
    let environment = try await matched()
    let context = environment.sessionContext()
    #expect(context.touchIDAuthenticationAllowableReuseDuration == 0)
    environment.scripted.enqueue(.cancel)
    let (_, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(error) == .userCancel)
  }

  @Test("within the window a recent match is reused without a scan, even without interaction")
  func withinWindow() async throws {
    let environment = try await matched()
    environment.clock.advance(by: 20)
    let context = environment.sessionContext()
    context.touchIDAuthenticationAllowableReuseDuration = 30
    context.interactionNotAllowed = true
    let (success, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(success)
    #expect(error == nil)
  }

  @Test("values above 300 are kept but act as 300")
  func capped() async throws {
    let environment = try await matched()
    let context = environment.sessionContext()
    context.touchIDAuthenticationAllowableReuseDuration = 1000
    #expect(context.touchIDAuthenticationAllowableReuseDuration == 1000)
    environment.clock.advance(by: 299)
    let (reused, _) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(reused)
    environment.clock.advance(by: 2)
    environment.scripted.enqueue(.cancel)
    let (_, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(error) == .userCancel)
  }

  @Test("endReuseWindow() (logout) ends the window, so Face ID cannot log straight back in")
  func logoutEndsWindow() async throws {
    let environment = try await matched()
    let context = environment.sessionContext()
    context.touchIDAuthenticationAllowableReuseDuration = 300
    try context.endReuseWindow()
    environment.scripted.enqueue(.cancel)
    let (_, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(error) == .userCancel)
  }

  @Test("a negative duration acts as 0")
  func negative() async throws {
    let environment = try await matched()
    let context = environment.sessionContext()
    context.touchIDAuthenticationAllowableReuseDuration = -5
    environment.scripted.enqueue(.cancel)
    let (_, error) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    #expect(laCode(error) == .userCancel)
  }
}
