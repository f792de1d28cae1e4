/// Decides whether a request is visible to the person in front of the machine, before a finger is asked for
/// (docs/RULES.md, "Intent"; docs/THREATS.md; CVE-2024-37408: a hidden `sudo` must not claim the reader for a
/// touch meant for something else). A function over the process model (`ProcessSnapshot`).
///
/// Visible means: the process that called PAM (the module's host; the helper's caller) holds the foreground of its
/// controlling terminal, handed to it by the terminal's shell (`Foreground`); when it does not run as root, the
/// program the user ran (its parent: the shell behind `sudo` or `su`) has the same controlling terminal; and, on a
/// pseudo-terminal, every program holding its master shows it (`TerminalWatch`). Services named in
/// `gui_services=` show their own prompt: for a root caller (a display manager, pamtester) the name is enough;
/// for a caller that is not root it must also be a system program (`SystemProgram`), and polkit's setuid
/// `polkit-agent-helper-1` must run under a polkit agent that is a system program.
public enum RequestVisibility {
  /// The one seam to /proc (ProcessFacts).
  package typealias System = ProcessFacts

  /// What the caller knows about the request.
  public struct Input: Equatable, Sendable {
    /// The PAM service.
    package var service: String
    /// The process that called PAM.
    package var processID: Int32
    /// The real uid of the process that asks (RequestOrigin.requesterUID).
    package var requesterUID: UInt32
    /// The services that show their own prompt (`gui_services=`).
    package var guiServices: [String]
    /// The terminal emulators that show a pseudo-terminal to the person at the machine (`terminal_programs=`).
    package var terminalPrograms: [String]

    /// Describes a request.
    public init(
      service: String, processID: Int32, requesterUID: UInt32 = 0, guiServices: [String],
      terminalPrograms: [String] = RequestVisibility.defaultTerminalPrograms
    ) {
      self.service = service
      self.processID = processID
      self.requesterUID = requesterUID
      self.guiServices = guiServices
      self.terminalPrograms = terminalPrograms
    }
  }

  /// The decision and the facts behind it, for the one log line.
  public struct Verdict: Equatable, Sendable {
    /// True when the finger may be offered.
    package var isVisible: Bool
    /// Why, as a phrase naming the process and its terminal state.
    package var reason: String
    /// The terminals and their foreground groups the decision relied on (device, group, …): the wait's re-check
    /// withdraws a request whose foregrounds changed.
    package var watchState: [Int32] = []

    /// Describes a decision.
    public init(isVisible: Bool, reason: String) {
      self.isVisible = isVisible
      self.reason = reason
    }
  }

  /// The default `gui_services=`: services whose application shows its own prompt without a terminal. For a helper
  /// caller or an app the name is its executable's, and counts only for a system program (`SystemProgram`):
  /// KDE's locker asks as service `kde` from its executable `kscreenlocker_greet`.
  package static let defaultGUIServices = [
    "gdm-password", "gdm-fingerprint", "gdm-smartcard", "gdm-autologin", "lightdm", "lightdm-greeter", "sddm",
    "sddm-greeter", "polkit-1", "xscreensaver", "gnome-screensaver", "cinnamon-screensaver", "mate-screensaver",
    "xfce4-screensaver", "kde", "kscreenlocker", "kscreenlocker_greet", "swaylock", "i3lock", "hyprlock",
    "cosmic-greeter", "greetd",
  ]

  /// The default `terminal_programs=`: terminal emulators, by the name of their executable (TerminalWatch).
  public static let defaultTerminalPrograms = TerminalWatch.defaultPrograms

  /// polkit's setuid helper, which any user may start by hand.
  static let polkitHelper = "polkit-agent-helper-1"
  /// polkit authentication agents, by the name of their executable: the only parents under which
  /// `polkit-agent-helper-1` shows a request (pkttyagent only in the foreground of a watched terminal).
  static let polkitAgents: Set<String> = [
    "pkttyagent", "gnome-shell", "polkit-gnome-authentication-agent-1", "polkit-kde-authentication-agent-1",
    "polkit-mate-authentication-agent-1", "lxpolkit", "lxqt-policykit-agent", "xfce-polkit", "cinnamon",
    "budgie-polkit-dialog", "hyprpolkitagent", "polkit-efl-authentication-agent-1", "cosmic-osd",
  ]

  /// Whether the request of `input` is visible, and why.
  package static func check(_ input: Input, system: System) -> Verdict {
    let snapshot = ProcessSnapshot(system)
    var verdict = decide(input, snapshot)
    verdict.watchState = snapshot.foregroundsSeen
    return verdict
  }

  /// The decision over `snapshot`.
  static func decide(_ input: Input, _ snapshot: ProcessSnapshot) -> Verdict {
    let pid = input.processID
    if input.guiServices.contains(input.service) { return ownPrompt(input, snapshot) }
    guard let process = snapshot.stat(pid) else {
      return Verdict(isVisible: false, reason: "process \(pid) cannot be read")
    }
    let who = "process \(pid) (\(LogText.token(process.name)))"
    if let why = Foreground.reason(pid, snapshot) { return Verdict(isVisible: false, reason: why) }
    // A root caller (login started by getty) owns its terminal; root needs nothing from a finger anyway.
    guard let uid = snapshot.realUID(pid) else {
      return Verdict(isVisible: false, reason: "the owner of \(who) cannot be read")
    }
    if uid == 0 {
      return watched(
        input, process, Verdict(isVisible: true, reason: "\(who) runs as root in the foreground of \(process.terminalName)"),
        snapshot)
    }
    guard let parent = snapshot.stat(process.parent) else {
      return Verdict(isVisible: false, reason: "the parent process \(process.parent) of \(who) cannot be read")
    }
    let parentName = "its parent process \(process.parent) (\(LogText.token(parent.name)))"
    guard parent.terminal == process.terminal else {
      let state = parent.terminal == 0 ? "has no controlling terminal" : "has another terminal, \(parent.terminalName)"
      return Verdict(
        isVisible: false, reason: "\(who) is in the foreground of \(process.terminalName) but \(parentName) \(state)")
    }
    return watched(
      input, process,
      Verdict(isVisible: true, reason: "\(who) and \(parentName) are in the foreground of \(process.terminalName)"),
      snapshot)
  }

  /// A request of a service named in `gui_services=`: visible for a root caller; for any other, only from a system
  /// program, and polkit's helper only under a polkit agent (pkttyagent: one in the foreground of a watched terminal).
  static func ownPrompt(_ input: Input, _ snapshot: ProcessSnapshot) -> Verdict {
    let service = LogText.token(input.service)
    if input.requesterUID == 0 {
      return Verdict(isVisible: true, reason: "service \(service) shows its own prompt (gui_services)")
    }
    let pid = input.processID
    let program = snapshot.systemProgram(pid)
    guard let name = program.name else {
      return Verdict(
        isVisible: false,
        reason: "service \(service) is named in gui_services, but its caller is not a system program (\(program.reason))")
    }
    guard name == polkitHelper else {
      return Verdict(isVisible: true, reason: "service \(service) of system program \(name) shows its own prompt (gui_services)")
    }
    let parent = snapshot.stat(pid)?.parent ?? 0
    let agent = snapshot.systemProgram(parent)
    guard let agentName = agent.name, polkitAgents.contains(agentName) else {
      return Verdict(
        isVisible: false,
        reason: "\(polkitHelper) (process \(pid)) was not started by a polkit agent that is a system program "
          + "(parent: \(agent.name.map { "process \(parent) runs \(LogText.token($0))" } ?? agent.reason))")
    }
    guard agentName == "pkttyagent" else {
      return Verdict(isVisible: true, reason: "\(polkitHelper) (process \(pid)) runs under polkit agent \(agentName)")
    }
    var shown = decide(
      Input(
        service: "pkttyagent", processID: parent, requesterUID: snapshot.realUID(parent) ?? UInt32.max, guiServices: [],
        terminalPrograms: input.terminalPrograms), snapshot)
    shown.reason = "\(polkitHelper) (process \(pid)) runs under pkttyagent: " + shown.reason
    return shown
  }

  /// `verdict` when the terminal of `process` is not a pseudo-terminal or someone watches it (TerminalWatch);
  /// else not visible, with both reasons.
  static func watched(_ input: Input, _ process: ProcessSnapshot.Stat, _ verdict: Verdict, _ snapshot: ProcessSnapshot) -> Verdict {
    guard let index = TerminalDevice.ptsIndex(process.terminalName),
      let reason = TerminalWatch.unwatchedReason(pts: index, programs: input.terminalPrograms, snapshot)
    else { return verdict }
    return Verdict(isVisible: false, reason: verdict.reason + ", but " + reason)
  }

  /// The name, parent, process group, terminal and the terminal's foreground group from /proc/PID/stat.
  static func processTerminal(_ pid: Int32, _ system: System) -> ProcessSnapshot.Stat? {
    ProcessSnapshot(system).stat(pid)
  }
}
