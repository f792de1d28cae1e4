#if canImport(Glibc)
import Glibc
#endif
@testable import LocalAuthCore
import LocalAuthTesting
import Testing

/// Issue 39: an app without a visible terminal gets the desktop's dialog through polkit; the dialog's yes counts as
/// the finger only when pam_localauth matched it in the one polkit-1 authentication that ran while it was open.
@Suite("Issue 39: the desktop's dialog for apps (polkit)")
struct PolkitDialogTests {
  let alice = try! UserName("alice")
  let bob = try! UserName("bob")

  typealias Run = DialogLedger.Run

  @Test("polkit's answers map to Apple's errors; a yes is the finger only for one run that matched it")
  func outcomes() {
    let finger = [Run(processID: 7, ended: true, method: .biometry)]
    let owner = AuthPolicy.deviceOwnerAuthentication
    let biometrics = AuthPolicy.deviceOwnerAuthenticationWithBiometrics
    let yes = PolkitReply.answered(authorized: true, challenge: false, dismissed: false)
    #expect(PolkitDialog.outcome(of: yes, runs: finger, policy: biometrics).0 == .success(.biometry))
    #expect(PolkitDialog.outcome(of: yes, runs: finger, policy: owner).0 == .success(.biometry))
    // The passcode typed in the dialog, pam_unix's password (no run of ours ended with a method), or two runs.
    let passcode = [Run(processID: 7, ended: true, method: .passcode)]
    let unixPassword = [Run(processID: 7, ended: true, method: nil)]
    let two = [Run(processID: 7, ended: true, method: .biometry), Run(processID: 8, ended: true, method: nil)]
    let unfinished = [Run(processID: 7, ended: false, method: .biometry)]
    for runs in [passcode, unixPassword, two, unfinished, []] {
      #expect(PolkitDialog.outcome(of: yes, runs: runs, policy: owner).0 == .success(.passcode))
      #expect(PolkitDialog.outcome(of: yes, runs: runs, policy: biometrics).0 == .failure(.authenticationFailed, .none))
    }
    #expect(PolkitDialog.outcome(of: yes, runs: two, policy: owner).1.contains("2 polkit-1 authentications ran"))
    #expect(PolkitDialog.outcome(of: yes, runs: passcode, policy: biometrics).1.contains("which the biometrics policy refuses"))
    // Dismissed: userCancel (-2). No agent, no polkitd: no dialog (nil), the request goes on as one without a dialog
    // (notInteractive, -1004, or the app's own prompter), with the reason in the log sentence.
    let dismissed = PolkitReply.answered(authorized: false, challenge: false, dismissed: true)
    #expect(PolkitDialog.outcome(of: dismissed, runs: finger, policy: owner).0 == .failure(.userCancel, .none))
    let noAgent = PolkitDialog.outcome(of: .answered(authorized: false, challenge: true, dismissed: false), runs: [], policy: owner)
    #expect(noAgent.0 == nil)
    #expect(noAgent.1 == "was not shown: no polkit authentication agent is registered for its session.")
    // A refusal after an authentication ran: authenticationFailed (-1); without one (an inactive session): -1004.
    let no = PolkitReply.answered(authorized: false, challenge: false, dismissed: false)
    #expect(PolkitDialog.outcome(of: no, runs: unixPassword, policy: owner).0 == .failure(.authenticationFailed, .none))
    #expect(PolkitDialog.outcome(of: no, runs: [], policy: owner).0 == .failure(.notInteractive, .none))
    // Cancel at the module's prompt, where the agent (pkttyagent, lxpolkit) reports no dismissal: userCancel (-2).
    let cancelled = [Run(processID: 7, ended: true, method: nil, cancelled: true)]
    #expect(PolkitDialog.outcome(of: no, runs: cancelled, policy: owner) == (.failure(.userCancel, .none), "was cancelled at its prompt."))
    // polkitd absent, the app gone, no answer in time.
    let absent = PolkitDialog.outcome(of: .failed("org.freedesktop.DBus.Error.ServiceUnknown"), runs: [], policy: owner)
    #expect(absent.0 == nil)
    #expect(absent.1.contains("org.freedesktop.DBus.Error.ServiceUnknown"))
    #expect(PolkitDialog.outcome(of: .cancelled, runs: [], policy: owner).0 == .failure(.appCancel, .none))
    #expect(PolkitDialog.outcome(of: .timedOut, runs: [], policy: owner).0 == .failure(.systemCancel, .none))
  }

  @Test("the ledger records a polkit-1 run only in the open dialogs of its user, and none after the dialog closed")
  func ledger() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let ledger = DialogLedger(root: folder.path)
    #expect(ledger.beginRun(user: alice, processID: 40).isEmpty)
    let dialog = try ledger.open(user: alice, appPID: 4242)
    #expect(dialog.helperPID == getpid())
    #expect(ledger.open(for: alice) == [dialog])
    #expect(ledger.open(for: bob).isEmpty)
    // Bob's run is not Alice's dialog's.
    #expect(ledger.beginRun(user: bob, processID: 41).isEmpty)
    let seen = ledger.beginRun(user: alice, processID: 42)
    #expect(seen == [dialog])
    ledger.endRun(in: seen, processID: 42, method: .biometry)
    #expect(ledger.close(dialog) == [Run(processID: 42, ended: true, method: .biometry)])
    let again = try ledger.open(user: alice, appPID: 4242)
    ledger.endRun(in: ledger.beginRun(user: alice, processID: 44), processID: 44, method: nil, cancelled: true)
    #expect(ledger.close(again) == [Run(processID: 44, ended: true, method: nil, cancelled: true)])
    #expect(ledger.open(for: alice).isEmpty)
    // A run that begins after the dialog closed is recorded nowhere.
    #expect(ledger.beginRun(user: alice, processID: 43).isEmpty)
    #expect(access(ledger.folder + "/" + dialog.id, F_OK) != 0)
  }

  @Test("a run that never ended counts as unfinished; a dialog whose helper is gone is not open")
  func ledgerUnfinishedAndStale() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let ledger = DialogLedger(root: folder.path)
    let dialog = try ledger.open(user: alice, appPID: 4242)
    _ = ledger.beginRun(user: alice, processID: 50)
    #expect(ledger.close(dialog) == [Run(processID: 50, ended: false, method: nil)])
    // A dialog file naming a helper that no longer runs (pid 1's start time differs) is stale.
    var stale = try ledger.open(user: alice, appPID: 4242)
    let path = ledger.folder + "/" + stale.id + "/dialog"
    let text = "localauth-dialog 1\nuser alice\nhelper-pid 1\nhelper-start 999999999\napp-pid 4242\n"
    try FileSyscalls.atomicWrite(Array(text.utf8), directory: ledger.folder + "/" + stale.id, name: "dialog", flushFolder: false, flushFile: false)
    #expect(ledger.open(for: alice).isEmpty)
    stale.helperPID = 1
    _ = ledger.close(stale)
    #expect(access(path, F_OK) != 0)
  }

  @Test("the question names the app's process and its policy's action; the text is the app's name and reason")
  func question() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let dialog = PolkitDialog(
      ask: { _, _ in .failed("unused") }, ledger: DialogLedger(root: folder.path), application: "notes", uid: 1000,
      withdrawn: { false }, log: MemoryLog())
    var request = EvaluationRequest(
      user: alice, policy: .deviceOwnerAuthenticationWithBiometrics, reason: "open the notes vault",
      origin: RequestOrigin(service: "notes", tty: "", processID: getpid()))
    let asked = try #require(dialog.question(for: request))
    #expect(asked.processID == getpid())
    #expect(asked.processStart == FileSyscalls.processStartTime(getpid()))
    #expect(asked.uid == 1000)
    #expect(asked.action == "org.localauth.evaluate.biometrics")
    #expect(asked.message == "\u{201C}notes\u{201D} is trying to open the notes vault.")
    request.policy = .deviceOwnerAuthentication
    #expect(dialog.question(for: request)?.action == "org.localauth.evaluate")
  }

  @Test("a dialog approved by the finger in its one polkit-1 run is biometry; the ledger is empty afterwards")
  func runWithLedger() throws {
    let folder = try TempFolder()
    defer { folder.remove() }
    let ledger = DialogLedger(root: folder.path)
    let log = MemoryLog()
    let user = alice
    // polkitd's agent runs polkit-agent-helper-1, whose pam_localauth records its run, then polkitd says yes.
    let dialog = PolkitDialog(
      ask: { question, withdrawn in
        #expect(!withdrawn())
        let dialogs = ledger.beginRun(user: user, processID: 77)
        #expect(dialogs.count == 1 && dialogs.first?.appPID == question.processID)
        ledger.endRun(in: dialogs, processID: 77, method: .biometry)
        return .answered(authorized: true, challenge: false, dismissed: false)
      }, ledger: ledger, application: "notes", uid: 1000, withdrawn: { false }, log: log)
    let request = EvaluationRequest(
      user: alice, policy: .deviceOwnerAuthenticationWithBiometrics, reason: "open the notes vault",
      origin: RequestOrigin(service: "notes", tty: "", processID: getpid()))
    #expect(dialog.run(request) == .success(.biometry))
    #expect(ledger.open(for: alice).isEmpty)
    #expect(log.lines.contains { $0.contains("The dialog of app notes (pid \(getpid())) of user alice was approved by the finger.") })
    // The app hangs up: the withdrawal reaches polkit's wait.
    let gone = PolkitDialog(
      ask: { _, withdrawn in withdrawn() ? .cancelled : .timedOut }, ledger: ledger, application: "notes", uid: 1000,
      withdrawn: { true }, log: log)
    #expect(gone.run(request) == .failure(.appCancel, .none))
  }

  @Test("app_dialog= parses as yes or no, on by default, and the report names it")
  func option() throws {
    #expect(Options().appDialog)
    #expect(Options().settingLines.contains("app_dialog=yes"))
    let off = try OptionParser.parse(arguments: ["app_dialog=no"], readFile: { _ in nil }).options
    #expect(!off.appDialog)
    #expect(off.settingLines.contains("app_dialog=no"))
    #expect(throws: ConfigError.self) { try OptionParser.parse(arguments: ["app_dialog=maybe"], readFile: { _ in nil }) }
  }

  @Test("the evaluator shows a hidden request in the dialog only when interaction is allowed and a passcode is set")
  func evaluatorHook() throws {
    let world = try TestWorld()
    try world.prime()
    nonisolated(unsafe) var shown = 0
    var request = world.request(.deviceOwnerAuthenticationWithBiometrics)
    request.hidden = true
    request.systemDialog = {
      shown += 1
      return .success(.biometry)
    }
    #expect(try world.evaluator.evaluate(request) == .success(.biometry))
    #expect(shown == 1)
    // No interaction: notInteractive, the dialog never shown; a visible request never uses it either.
    request.interactionAllowed = false
    #expect(try world.evaluator.evaluate(request) == .failure(.notInteractive, .none))
    request.interactionAllowed = true
    request.hidden = false
    world.present(world.genuine())
    #expect(try world.evaluator.evaluate(request) == .success(.biometry))
    #expect(shown == 1)
    // Biometry locked out under policy 1: the lockout, not a dialog.
    try world.store.modify(world.user) { (record: inout UserRecord) throws(LocalAuthError) in
      record.biometricFailures = 5
    }
    request.hidden = true
    guard case .failure(.biometryLockout, _) = try world.evaluator.evaluate(request) else {
      Issue.record("a locked-out policy 1 request must answer biometryLockout")
      return
    }
    #expect(shown == 1)
  }

  @Test("keychain: a biometryCurrentSet item opens after the dialog's finger, a userPresence one after its passcode")
  func keychainConstraints() {
    let fingerState = "state-1"
    var finger = KeychainAuthorization(biometry: true, domainState: fingerState)
    var passcode = KeychainAuthorization()
    passcode.passcodeAccepted = true
    let currentSet = KeychainConstraint.biometry(currentSet: true)
    #expect(currentSet.isSatisfied(by: finger, storedDomainState: fingerState))
    #expect(!currentSet.isSatisfied(by: passcode, storedDomainState: fingerState))
    #expect(!KeychainConstraint.biometry(currentSet: false).isSatisfied(by: passcode, storedDomainState: nil))
    #expect(KeychainConstraint.ownerAuthentication.isSatisfied(by: passcode, storedDomainState: nil))
    // .devicePasscode needs the passcode itself, which a dialog never hands over.
    #expect(!KeychainConstraint.passcode.isSatisfied(by: passcode, storedDomainState: nil))
    finger.biometry = false
    #expect(!KeychainConstraint.ownerAuthentication.isSatisfied(by: finger, storedDomainState: nil))
  }
}
