/// The one assembly of an evaluation request, for the module's PAM conversations (`UserAuthentication`, in the
/// module or in the helper's PAM mode) and the helper's apps (`Helper/AppSession`), and their one seam to the
/// system: the /proc reads and the remote-session decision (tests feed fake files and verdicts).
///
/// Each path says who asks (`Requester`) and what the caller gave (reason, titles, reuse, interaction); the builder
/// adds what the rules decide: whether the session is remote (docs/RULES.md, rule 6), whether the person at the
/// machine can see the request ("Intent", with the one notice when not), and the reuse purpose (rule 7).
package struct EvaluationRequestBuilder {
  /// The /proc reads of the intent check, the approved command and an app's environment.
  package var processes: RequestVisibility.System
  /// The remote-session decision for a runtime folder; nil for the system's (`remoteSession`).
  package var remoteDetection: ((_ runtimeRoot: String) -> RemoteSession.Verdict)?

  /// A builder on `processes` (the running system by default) with the system's remote-session decision.
  package init(processes: RequestVisibility.System = .live) {
    self.processes = processes
  }

  /// Who asks, as a request is built from it.
  package struct Requester {
    /// The user to authenticate.
    package var user: UserName
    /// Who asks and from where; its pid is the process whose visibility is checked.
    package var origin: RequestOrigin
    /// The name the visibility check goes by: the PAM service, or the app's executable.
    package var service: String
    /// The requester in the notice of a hidden request: "service sudo", "app la-app (pid 42)".
    package var subject: String
    /// What a match is made for and which matches the request may reuse (rule 7).
    package var purpose: ReusePurpose
    /// The services whose requests count as shown without a terminal (`gui_services=`, or an app's own dialog);
    /// asked only when the visibility check runs.
    package var guiServices: () -> [String]

    /// Describes a requester.
    package init(
      user: UserName, origin: RequestOrigin, service: String, subject: String, purpose: ReusePurpose,
      guiServices: @escaping () -> [String]
    ) {
      self.user = user
      self.origin = origin
      self.service = service
      self.subject = subject
      self.purpose = purpose
      self.guiServices = guiServices
    }
  }

  /// Whether the session is remote: `remoteDetection`, else the system's decision from PAM_RHOST (`remoteHost`),
  /// the terminal's utmp record, this process's login session (`loginSession` when already read), the ledger in
  /// `runtimeRoot`, logind, the ancestry, and the caller's SSH_* variables, which can only make it remote.
  package func remoteSession(
    remoteHost: String = "", tty: String, environment: [String: String], runtimeRoot: String, loginSession: String?
  ) -> RemoteSession.Verdict {
    if let remoteDetection { return remoteDetection(runtimeRoot) }
    return RemoteSession.detectCurrent(
      remoteHost: remoteHost, tty: tty, environment: { environment[$0] }, runtimeRoot: runtimeRoot,
      loginSession: loginSession)
  }

  /// The SSH_* variables (`RemoteSession.variables`) a process was started with, from /proc/PID/environ.
  package func environment(of pid: Int32) -> [String: String] {
    guard let bytes = processes.read("/proc/\(pid)/environ", 1 << 17) else { return [:] }
    var found: [String: String] = [:]
    for entry in bytes.split(separator: 0) {
      let text = String(decoding: entry, as: UTF8.self)
      guard let equals = text.utf8.firstIndex(of: UInt8(ascii: "=")) else { continue }
      let name = String(text[..<equals])
      if RemoteSession.variables.contains(name) { found[name] = String(text[text.index(after: equals)...]) }
    }
    return found
  }

  /// What the finger approves when `pid` runs the real su or sudo (`ApprovedCommand`), from its command line; for
  /// polkit's helper, the request its parent, the polkit agent, shows.
  package func approval(of pid: Int32, service: String) -> String? {
    guard let cmdline = processes.read("/proc/\(pid)/cmdline", 1 << 17) else { return nil }
    let phrase = ApprovedCommand.phrase(cmdline: cmdline, service: service)
    // The agent's name from its executable (comm is cut to 15 bytes: "polkit-gnome-au").
    let snapshot = ProcessSnapshot(processes)
    guard phrase == ApprovedCommand.polkitPhrase(agent: nil, service: service), let parent = snapshot.stat(pid)?.parent,
      parent > 1
    else { return phrase }
    let agent = snapshot.programName(parent)
    return ApprovedCommand.polkitPhrase(agent: agent == "?" ? nil : agent, service: service)
  }

  /// The request of `requester`, remote as `session` says; hidden (no finger, no reuse) when the person at the
  /// machine cannot see it, with one notice (`RequestVisibility.isHidden`).
  package func request(
    for requester: Requester, policy: AuthPolicy, reason: String, fallbackTitle: String?, cancelTitle: String? = nil,
    reuseDuration: Double, interactionAllowed: Bool, session: RemoteSession.Verdict,
    cancellation: CancellationFlag? = nil, terminalPrograms: [String], sensorPresent: Bool, log: AuthLog
  ) -> EvaluationRequest {
    // docs/RULES.md, "Intent": a request the person at the machine cannot see gets no finger. The check runs
    // whether interaction is allowed or not: a reuse needs a visible request too.
    var hidden = false
    var recheck: (() -> String?)? = nil
    if !session.isRemote, sensorPresent {
      let input = RequestVisibility.Input(
        service: requester.service, processID: requester.origin.processID,
        requesterUID: requester.origin.requesterUID, guiServices: requester.guiServices(),
        terminalPrograms: terminalPrograms)
      let processes = self.processes
      let first = RequestVisibility.check(input, system: processes)
      if first.isVisible {
        recheck = { Self.visibilityChange(since: first, now: RequestVisibility.check(input, system: processes)) }
      } else {
        hidden = true
        log.log(
          .notice,
          "No finger is asked of user \(requester.user) for \(requester.subject): \(first.reason), so the request is not "
            + "visible at the machine.")
      }
    }
    var request = EvaluationRequest(
      user: requester.user, policy: policy, reason: reason, fallbackTitle: fallbackTitle, cancelTitle: cancelTitle,
      reuseDuration: reuseDuration, interactionAllowed: interactionAllowed, remote: session.isRemote,
      cancellation: cancellation, origin: requester.origin)
    request.hidden = hidden
    request.visibilityRecheck = recheck
    request.purpose = requester.purpose
    return request
  }

  /// Why a request judged visible by `first` no longer is by `now` (docs/RULES.md, "Visibility holds for the
  /// whole wait"), or nil while it still is: the new verdict's reason, or the change of its terminals' foreground.
  package static func visibilityChange(since first: RequestVisibility.Verdict, now: RequestVisibility.Verdict) -> String? {
    if !now.isVisible { return now.reason }
    if now.watchState != first.watchState { return "the foreground of its terminals changed since the request began" }
    return nil
  }
}
