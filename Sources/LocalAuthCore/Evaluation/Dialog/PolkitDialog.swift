/// An app's request shown in the desktop's own dialog (issue 39): for an app without a visible terminal, the helper
/// asks polkitd to authorize one of our actions for the app's process, as Apple's pam_tid asks its system authority
/// for a named right. The user's polkit agent (GNOME Shell, KDE, polkit-gnome, lxpolkit, pkttyagent) draws the
/// dialog with the text the helper wrote from the kernel's name of the app and the app's reason, and runs PAM
/// service polkit-1, where pam_localauth asks for the finger and records how it ended (`DialogLedger`).
///
/// polkit's yes alone does not say how: it counts as the finger only when the ledger shows that the module matched
/// the finger in the one polkit-1 authentication that ran while the dialog was open; otherwise as the passcode, which
/// policy 1 (…WithBiometrics) and biometry-gated items refuse. The secret an item guards is released by our engine on
/// that outcome, never by polkit's yes alone.
package struct PolkitDialog {
  /// polkit's action for policy 2.
  package static let ownerAction = "org.localauth.evaluate"
  /// polkit's action for policy 1.
  package static let biometricsAction = "org.localauth.evaluate.biometrics"
  /// The longest a dialog stays open, in seconds: then it is cancelled, and the app told `systemCancel`.
  package static let longestOpen: Double = 300

  /// Asks polkitd (PolkitBus.ask where it runs; scripted in tests).
  let ask: @Sendable (PolkitQuestion, () -> Bool) -> PolkitReply
  /// The ledger the module writes its polkit-1 authentications to.
  let ledger: DialogLedger
  /// The app's executable, as the kernel names it.
  let application: String
  /// The app's real uid.
  let uid: UInt32
  /// True once the app no longer waits (it hung up): the dialog is then cancelled.
  let withdrawn: () -> Bool
  let log: AuthLog

  /// A dialog for `application`.
  package init(
    ask: @escaping @Sendable (PolkitQuestion, () -> Bool) -> PolkitReply, ledger: DialogLedger, application: String,
    uid: UInt32, withdrawn: @escaping () -> Bool, log: AuthLog
  ) {
    self.ask = ask
    self.ledger = ledger
    self.application = application
    self.uid = uid
    self.withdrawn = withdrawn
    self.log = log
  }

  /// The dialog's text: “notes” is trying to open the notes vault.
  package static func message(application: String, reason: String) -> String {
    "\u{201C}\(application)\u{201D} is trying to \(reason)."
  }

  /// The question for `request`: its policy's action, the app's process as the kernel names it.
  package func question(for request: EvaluationRequest) -> PolkitQuestion? {
    let pid = request.origin.processID
    guard let start = FileSyscalls.processStartTime(pid) else { return nil }
    let action = request.policy == .deviceOwnerAuthenticationWithBiometrics ? Self.biometricsAction : Self.ownerAction
    return PolkitQuestion(
      processID: pid, processStart: start, uid: uid, action: action,
      message: Self.message(application: application, reason: request.reason), timeout: Self.longestOpen)
  }

  /// Shows `request` in the dialog and returns the evaluation's outcome; nil when no dialog could be shown (no
  /// polkitd, no agent for the app's session), and the request goes on as one without a dialog (`notInteractive`,
  /// or the app's own prompter).
  package func run(_ request: EvaluationRequest) -> EvaluationOutcome? {
    let who = "app \(application) (pid \(request.origin.processID)) of user \(request.user)"
    guard let question = question(for: request) else {
      log.log(.notice, "No dialog for \(who): its process cannot be read.")
      return nil
    }
    let dialog: DialogLedger.Dialog
    do { dialog = try ledger.open(user: request.user, appPID: request.origin.processID) } catch {
      log.log(.error, "No dialog for \(who): the dialog cannot be recorded: \(error).")
      return nil
    }
    log.log(.info, "Asked polkit (\(question.action)) to show the request of \(who) in the desktop's dialog.")
    let cancellation = request.cancellation
    let withdrawn = self.withdrawn
    let reply = ask(question) { cancellation?.isCancelled == true || withdrawn() }
    let runs = ledger.close(dialog)
    let (outcome, sentence) = Self.outcome(of: reply, runs: runs, policy: request.policy)
    log.log(outcome?.isSuccess == true ? .info : .notice, "The dialog of \(who) " + sentence)
    return outcome
  }

  /// The outcome of polkit's `reply` given the polkit-1 authentications the ledger recorded (nil when no dialog was
  /// shown), and the rest of the log sentence that says why.
  package static func outcome(
    of reply: PolkitReply, runs: [DialogLedger.Run], policy: AuthPolicy
  ) -> (EvaluationOutcome?, String) {
    switch reply {
    case .answered(authorized: true, _, _):
      let finger = runs.count == 1 && runs[0].ended && runs[0].method == .biometry
      if finger { return (.success(.biometry), "was approved by the finger.") }
      let how =
        switch runs.count {
        case 0: "no pam_localauth authentication ran in polkit-1"
        case 1: runs[0].method == .passcode ? "it was answered with the passcode" : "pam_localauth did not match the finger in it"
        default: "\(runs.count) polkit-1 authentications ran while it was open, so the finger's cannot be told apart"
        }
      guard policy == .deviceOwnerAuthentication else {
        return (.failure(.authenticationFailed, .none), "was approved without the finger (\(how)), which the biometrics policy refuses.")
      }
      return (.success(.passcode), "was approved without the finger (\(how)): it counts as the passcode.")
    case .answered(authorized: false, _, dismissed: true):
      return (.failure(.userCancel, .none), "was dismissed.")
    case .answered(authorized: false, challenge: true, _):
      return (nil, "was not shown: no polkit authentication agent is registered for its session.")
    case .answered(authorized: false, challenge: false, _):
      if runs.last?.cancelled == true { return (.failure(.userCancel, .none), "was cancelled at its prompt.") }
      guard runs.isEmpty else { return (.failure(.authenticationFailed, .none), "was refused: the authentication failed.") }
      return (
        .failure(.notInteractive, .none),
        "was refused without a dialog: its session is not active at the machine (or a polkit rule refused it)."
      )
    case .failed(let why):
      return (nil, "was not shown: polkitd cannot be asked (\(LogText.token(why))).")
    case .cancelled:
      return (.failure(.appCancel, .none), "was cancelled: the app ended its request.")
    case .timedOut:
      return (.failure(.systemCancel, .none), "was cancelled after \(Int(longestOpen)) seconds without an answer.")
    }
  }
}
