import Foundation
import LocalAuthCore
import LocalAuthTesting
import LocalAuthentication
import Testing

@Suite("interactionNotAllowed and the terminal prompter")
struct InteractionTests {
  @Test("interactionNotAllowed: notInteractive for both policies when UI is needed; nothing is shown")
  func notInteractive() async throws {
    let environment = try TestEnvironment.ready()
    let context = environment.context()
    #expect(!context.interactionNotAllowed)
    context.interactionNotAllowed = true
    environment.touch()
    let before = environment.transcript.count
    let (one, error1) = await evaluate(context, .deviceOwnerAuthenticationWithBiometrics)
    let (two, error2) = await evaluate(context, .deviceOwnerAuthentication)
    #expect(!one && !two)
    #expect(laCode(error1) == .notInteractive)
    #expect(laCode(error2) == .notInteractive)
    #expect(environment.transcript.count == before)
    #expect(environment.scripted.pending.count == 1)
  }

  @Test("a prompter with no terminal: notInteractive")
  func noTerminal() async throws {
    let base = TestEnvironment(modality: nil)
    try base.setPasscode()
    var dependencies = base.dependencies
    dependencies.prompter = TerminalPrompter(path: "/nonexistent/tty")
    let context = LAContext(
      configuration: LAContextConfiguration(dependencies: dependencies, settings: base.settings, user: base.user))
    let (success, error) = await evaluate(context, .deviceOwnerAuthentication)
    #expect(!success)
    #expect(laCode(error) == .notInteractive)
  }

  @Test("a scripted prompter that runs out of answers: systemCancel, never success")
  func conversationFails() async throws {
    let environment = TestEnvironment(modality: nil)
    try environment.setPasscode()
    let (success, error) = await evaluate(environment.context(), .deviceOwnerAuthentication)
    #expect(!success)
    #expect(laCode(error) == .systemCancel)
  }

  @Test("properties keep what is set: titles, reason")
  func properties() {
    let context = TestEnvironment().context()
    #expect(context.localizedFallbackTitle == nil)
    #expect(context.localizedCancelTitle == nil)
    #expect(context.localizedReason == "")
    context.localizedFallbackTitle = "Use Passcode"
    context.localizedCancelTitle = ""
    context.localizedReason = "unlock"
    #expect(context.localizedFallbackTitle == "Use Passcode")
    #expect(context.localizedCancelTitle == "")
    #expect(context.localizedReason == "unlock")
  }

  @Test("the system configuration names the calling user and the default state folder")
  func systemConfiguration() throws {
    let configuration = try LAContextConfiguration.system(prompter: ScriptedPrompter())
    let entry = try #require(getpwuid(geteuid()))
    #expect(configuration.user == String(cString: entry.pointee.pw_name))
    if !FileManager.default.fileExists(atPath: Options.defaultConfigPath) {
      #expect((configuration.dependencies.store as? FileStateStore)?.root == "/var/lib/localauth")
      #expect(configuration.dependencies.sensor.modality == .touchID)
    }
  }
}
