@testable import LocalAuthCore
import Testing

/// Rule 4 of docs/RULES.md: the reason, fallback title and cancel title.
@Suite("Rule 4: reason and button titles")
struct Rule4PresentationTests {
  @Test("Rule 4: an empty localizedReason throws UsageError.emptyReason and never prompts", arguments: AuthPolicy.allCases)
  func emptyReasonThrows(policy: AuthPolicy) throws {
    let world = try TestWorld()
    try world.prime()
    let before = world.prompter.transcript.count
    world.present(world.genuine())
    #expect(throws: LocalAuthError.usage(.emptyReason)) { try world.evaluator.evaluate(world.request(policy, reason: "")) }
    #expect(world.prompter.transcript.count == before)
    #expect(world.sensor.pending.count == 1)
  }

  @Test("Rule 4: a finger asked for by another user says who asks and for what, before the request")
  func promptNamesAnotherRequester() throws {
    let world = try TestWorld()
    try world.prime()
    var request = world.request(.deviceOwnerAuthenticationWithBiometrics, reason: "switch user")
    request.origin = RequestOrigin(service: "su", tty: "/dev/pts/2", requesterUID: 1001, requesterName: "bob")
    world.present(world.genuine())
    #expect(try world.evaluator.evaluate(request) == .success(.biometry))
    let shown = world.prompter.transcript.suffix(2)
    #expect(
      Array(shown) == [
        "info: bob asks for \(world.user)'s finger to run su.", "info: Place your finger on the sensor to switch user.",
      ])
    // The user's own request, or root's (login), names nobody.
    for origin in [RequestOrigin(requesterUID: 1000, requesterName: world.user.value), RequestOrigin()] {
      request.origin = origin
      world.present(world.genuine())
      _ = try world.evaluator.evaluate(request)
      #expect(!world.prompter.transcript.contains { $0.contains("asks for") && !$0.contains("bob") })
    }
  }

  @Test("Rule 4: an empty localizedFallbackTitle hides the fallback button under policy 1")
  func emptyFallbackHidesButtonPolicy1() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), .fallback, world.impostor(), .fallback, world.genuine())
    #expect(try world.evaluate(.deviceOwnerAuthenticationWithBiometrics, fallbackTitle: "") == .success(.biometry))
    #expect(world.log.lines.filter { $0.hasPrefix("Ignored a fallback press") }.count == 2)
  }

  @Test("Rule 4: an empty localizedFallbackTitle hides the fallback under policy 2; the passcode still follows three failures")
  func emptyFallbackHidesButtonPolicy2() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.impostor(), .fallback, world.impostor(), world.impostor())
    world.prompter.enqueue(TestWorld.passcode)
    #expect(try world.evaluate(.deviceOwnerAuthentication, fallbackTitle: "") == .success(.passcode))
    #expect(world.log.lines.contains { $0.hasPrefix("Ignored a fallback press") })
    #expect(world.prompter.prompts.last == "prompt: Enter Passcode: ")
  }

  @Test("Rule 4: the default fallback titles are Apple's: Enter Password (policy 1), Enter Passcode (policy 2)")
  func defaultFallbackTitles() throws {
    let world = try TestWorld()
    #expect(world.request(.deviceOwnerAuthenticationWithBiometrics).effectiveFallbackTitle == "Enter Password")
    #expect(world.request(.deviceOwnerAuthentication).effectiveFallbackTitle == "Enter Passcode")
    #expect(world.request(.deviceOwnerAuthentication, fallbackTitle: "Use Passcode").effectiveFallbackTitle == "Use Passcode")
    #expect(world.request(.deviceOwnerAuthentication, fallbackTitle: "").effectiveFallbackTitle == nil)
  }

  @Test("Rule 4: an empty or absent localizedCancelTitle still shows Cancel")
  func cancelTitle() throws {
    let world = try TestWorld()
    #expect(world.request(.deviceOwnerAuthentication).effectiveCancelTitle == "Cancel")
    #expect(world.request(.deviceOwnerAuthentication, cancelTitle: "").effectiveCancelTitle == "Cancel")
    #expect(world.request(.deviceOwnerAuthentication, cancelTitle: "Not now").effectiveCancelTitle == "Not now")
  }

  @Test("Rule 4: Face ID's buttons show the cancel and fallback titles, with Cancel for an empty cancel title")
  func faceIDButtonTitles() throws {
    let world = try TestWorld(modality: .faceID)
    try world.prime()
    world.present(world.impostor(), world.impostor(), .cancel)
    let request = world.request(.deviceOwnerAuthenticationWithBiometrics, fallbackTitle: "Use PIN", cancelTitle: "")
    #expect(try world.evaluator.evaluate(request) == .failure(.userCancel, .none))
    #expect(world.shown("info: ").last == "info: Face not recognized. Choose \"Cancel\" or \"Use PIN\".")
  }
}
