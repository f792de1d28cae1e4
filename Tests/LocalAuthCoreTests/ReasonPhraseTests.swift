@testable import LocalAuthCore
import Testing

/// Rule 4 of docs/RULES.md, "A reason reads naturally in every prompt": `ReasonPhrase.line`.
@Suite("Rule 4: the reason in a prompt")
struct ReasonPhraseTests {
  static let lead = "Place your finger on the sensor"

  @Test(
    "Rule 4: a sentence or capitalised reason is kept as written, before the instruction, never with a second period",
    arguments: [
      ("Confirm your fingerprint to authenticate.", "Confirm your fingerprint to authenticate. Place your finger on the sensor."),
      ("Unlock the vault!", "Unlock the vault! Place your finger on the sensor."),
      ("Are you sure?", "Are you sure? Place your finger on the sensor."),
      ("Sign in…", "Sign in… Place your finger on the sensor."),
      ("Wait...", "Wait... Place your finger on the sensor."),
      ("are you sure?", "are you sure? Place your finger on the sensor."),
      ("Unlock the vault", "Unlock the vault. Place your finger on the sensor."),
      ("Please, pass authorisation", "Please, pass authorisation. Place your finger on the sensor."),
      ("SSH into the server", "SSH into the server. Place your finger on the sensor."),
      ("需要您的指纹认证。", "需要您的指纹认证。 Place your finger on the sensor."),
    ])
  func sentence(reason: String, expected: String) {
    #expect(ReasonPhrase.line(Self.lead, reason: reason) == expected)
  }

  @Test(
    "Rule 4: a lowercase verb phrase follows \"to\"; a single closing period is not doubled",
    arguments: [
      ("unlock the vault", "Place your finger on the sensor to unlock the vault."),
      ("iCloud sign-in", "Place your finger on the sensor to iCloud sign-in."),
      ("run `apt upgrade` as root (sudo)", "Place your finger on the sensor to run `apt upgrade` as root (sudo)."),
      ("unlock the vault.", "Place your finger on the sensor to unlock the vault."),
    ])
  func verbPhrase(reason: String, expected: String) {
    #expect(ReasonPhrase.line(Self.lead, reason: reason) == expected)
  }

  @Test("Rule 4: surrounding whitespace is trimmed; a reason blank after trimming adds nothing")
  func whitespace() {
    #expect(ReasonPhrase.line(Self.lead, reason: "  unlock the vault \t\n") == "Place your finger on the sensor to unlock the vault.")
    #expect(ReasonPhrase.line(Self.lead, reason: " Confirm it.  ") == "Confirm it. Place your finger on the sensor.")
    #expect(ReasonPhrase.line(Self.lead, reason: " \t\r\n ") == "Place your finger on the sensor.")
    #expect(ReasonPhrase.line(Self.lead, reason: "") == "Place your finger on the sensor.")
  }

  @Test("Rule 4: the end closes the line, also for a prompt that reads an answer")
  func end() {
    let lead = "Press Enter to use your finger"
    #expect(ReasonPhrase.line(lead, reason: "unlock", end: ": ") == "Press Enter to use your finger to unlock: ")
    #expect(ReasonPhrase.line(lead, reason: "Confirm it.", end: ": ") == "Confirm it. Press Enter to use your finger: ")
  }

  @Test("Rule 4: the biometric prompt of an evaluation shows a punctuated reason once, with one period")
  func evaluationPrompt() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    let request = world.request(.deviceOwnerAuthenticationWithBiometrics, reason: "Confirm your fingerprint to authenticate.")
    #expect(try world.evaluator.evaluate(request) == .success(.biometry))
    #expect(world.shown("info: ").last == "info: Confirm your fingerprint to authenticate. Place your finger on the sensor.")
    world.present(world.genuine())
    _ = try world.evaluator.evaluate(world.request(.deviceOwnerAuthentication, reason: "Unlock the vault"))
    #expect(world.shown("info: ").last == "info: Unlock the vault. Place your finger on the sensor.")
  }

  @Test("Rule 4: the confirmation prompt (confirm) joins the reason the same way")
  func confirmPrompt() throws {
    let world = try TestWorld()
    try world.prime()
    world.present(world.genuine())
    world.prompter.enqueue("")
    var request = world.request(.deviceOwnerAuthenticationWithBiometrics, reason: "Are you sure?")
    request.confirm = true
    #expect(try world.evaluator.evaluate(request) == .success(.biometry))
    #expect(world.prompter.prompts.last == "prompt: Are you sure? Press Enter to use your finger: ")
  }
}
