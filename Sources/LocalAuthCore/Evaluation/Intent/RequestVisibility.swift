/// Decides whether a request is visible to the person in front of the machine, before a finger is asked for
/// (docs/RULES.md, "Intent"; CVE-2024-37408: a hidden `sudo` must not claim the reader for a touch meant for
/// something else).
///
/// Visible means: the process that called PAM (the module's host; the helper's caller) has a controlling terminal
/// and is in that terminal's foreground process group; and, when it does not run as root, the program the user
/// ran (its parent: the shell behind `sudo` or `su`) has the same controlling terminal. A process with no
/// terminal, a background job, or a program started by something without that terminal (a script run by cron,
/// a daemon that opened a pseudo-terminal of its own) is not. On a pseudo-terminal, someone must also watch it:
/// its master's holder is root's, a visible process itself, a terminal emulator named in `terminal_programs=`,
/// or a one-pane multiplexer shown on a watched client (TerminalWatch). Services named in `gui_services=` show
/// their own prompt (display managers, polkit's agent, screen lockers) and are visible without a terminal.
public enum RequestVisibility {
  /// What the caller knows about the request.
  public struct Input: Equatable, Sendable {
    /// The PAM service.
    package var service: String
    /// The process that called PAM.
    package var processID: Int32
    /// The services that show their own prompt (`gui_services=`).
    package var guiServices: [String]
    /// The terminal emulators that show a pseudo-terminal to the person at the machine (`terminal_programs=`).
    package var terminalPrograms: [String]

    /// Describes a request.
    public init(
      service: String, processID: Int32, guiServices: [String],
      terminalPrograms: [String] = RequestVisibility.defaultTerminalPrograms
    ) {
      self.service = service
      self.processID = processID
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
    /// The foreground process groups of the terminals the verdict relied on: a recheck whose groups differ
    /// withdraws the request (`EvaluationRequest.visibilityRecheck`).
    package var watchState: [Int32] = []

    /// Describes a decision.
    public init(isVisible: Bool, reason: String) {
      self.isVisible = isVisible
      self.reason = reason
    }
  }

  /// The reads the check makes, as a function so that tests can feed fake /proc files.
  public struct System: Sendable {
    /// The contents of a file of at most `limit` bytes; nil when it is missing, unreadable or larger.
    package var read: @Sendable (_ path: String, _ limit: Int) -> [UInt8]?
    /// What a symbolic link holds (/proc/PID/exe, /proc/PID/fd/N); nil when it cannot be read.
    package var readLink: @Sendable (_ path: String) -> String?
    /// The names in a folder, without "." and "..", at most `limit` of them; nil when it cannot be listed.
    package var list: @Sendable (_ path: String, _ limit: Int) -> [String]?
    /// The owner and mode of a file, following links; nil when it cannot be read.
    package var owner: @Sendable (_ path: String) -> (uid: UInt32, mode: UInt32)?
    /// What stat(2) (`follow`) or lstat(2) says of a file; nil when it fails (`SystemProgram`).
    package var status: @Sendable (_ path: String, _ follow: Bool) -> SystemProgram.FileStatus? =
      SystemProgram.liveStatus

    /// Describes a system; by default links, folders and owners cannot be read (no pseudo-terminal is watched).
    public init(
      read: @escaping @Sendable (String, Int) -> [UInt8]?,
      readLink: @escaping @Sendable (String) -> String? = { _ in nil },
      list: @escaping @Sendable (String, Int) -> [String]? = { _, _ in nil },
      owner: @escaping @Sendable (String) -> (uid: UInt32, mode: UInt32)? = { _ in nil }
    ) {
      self.read = read
      self.readLink = readLink
      self.list = list
      self.owner = owner
    }

    /// The running system.
    package static var live: System {
      System(
        read: { path, limit in try? readSmallFile(path, limit: limit) }, readLink: SystemProgram.liveReadLink, list: liveList,
        owner: { path in SystemProgram.liveStatus(path, true).map { ($0.owner, $0.mode) } })
    }

    private static func liveList(_ path: String, _ limit: Int) -> [String]? {
      try? Syscalls.directoryNames(path, limit: limit).get()
    }
  }

  /// The fields of /proc/PID/stat the check needs.
  struct ProcessTerminal: Equatable {
    var name: String
    var parent: Int32
    var group: Int32
    var terminal: Int32
    var foregroundGroup: Int32

    /// "pts/3", "tty2", or "terminal MAJOR:MINOR" for the device number `tty_nr`.
    var terminalName: String { RequestVisibility.terminalName(terminal) }
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

  /// Whether the finger is withheld from `input`'s request, for the module and the helper's apps alike: never in a
  /// remote session or without a sensor (no finger is offered there anyway); otherwise when the request is not
  /// visible, with one notice naming `user`, `subject` ("service sudo", "app la-app (pid 42)") and why. `input` is
  /// made only when the check runs.
  package static func isHidden(
    _ input: () -> Input, user: UserName, subject: String, remote: Bool, sensorPresent: Bool, system: System, log: AuthLog
  ) -> Bool {
    guard !remote, sensorPresent else { return false }
    let visibility = check(input(), system: system)
    if !visibility.isVisible {
      log.log(
        .notice,
        "No finger is asked of user \(user) for \(subject): \(visibility.reason), so the request is not visible at "
          + "the machine.")
    }
    return !visibility.isVisible
  }

  /// Whether the request of `input` is visible, and why.
  package static func check(_ input: Input, system: System) -> Verdict {
    let pid = input.processID
    // Every read is made before deciding, so that each request costs the same (the bench's figure 1i).
    let process = processTerminal(pid, system)
    let owner = RemoteSession.statusUID(pid, system.read)
    let parent = process.flatMap { processTerminal($0.parent, system) }
    if input.guiServices.contains(input.service) {
      return Verdict(isVisible: true, reason: "service \(printable(input.service)) shows its own prompt (gui_services)")
    }
    guard let process else {
      return Verdict(isVisible: false, reason: "process \(pid) cannot be read")
    }
    let who = "process \(pid) (\(printable(process.name)))"
    guard process.terminal != 0 else {
      return Verdict(isVisible: false, reason: "\(who) has no controlling terminal")
    }
    guard process.foregroundGroup == process.group else {
      return Verdict(
        isVisible: false,
        reason: "\(who) is in background process group \(process.group) of \(process.terminalName), whose foreground "
          + "group is \(process.foregroundGroup)")
    }
    // A root caller (login started by getty) owns its terminal; root needs nothing from a finger anyway.
    guard let uid = owner else {
      return Verdict(isVisible: false, reason: "the owner of \(who) cannot be read")
    }
    if uid == 0 {
      return watched(
        input, process, Verdict(isVisible: true, reason: "\(who) runs as root in the foreground of \(process.terminalName)"),
        system)
    }
    guard let parent else {
      return Verdict(isVisible: false, reason: "the parent process \(process.parent) of \(who) cannot be read")
    }
    let parentName = "its parent process \(process.parent) (\(printable(parent.name)))"
    guard parent.terminal == process.terminal else {
      let state = parent.terminal == 0 ? "has no controlling terminal" : "has another terminal, \(parent.terminalName)"
      return Verdict(
        isVisible: false, reason: "\(who) is in the foreground of \(process.terminalName) but \(parentName) \(state)")
    }
    return watched(
      input, process,
      Verdict(isVisible: true, reason: "\(who) and \(parentName) are in the foreground of \(process.terminalName)"),
      system)
  }

  /// `verdict` when the terminal of `process` is not a pseudo-terminal or someone watches it (TerminalWatch);
  /// else not visible, with both reasons.
  static func watched(_ input: Input, _ process: ProcessTerminal, _ verdict: Verdict, _ system: System) -> Verdict {
    guard let index = TerminalWatch.ptsIndex(process.terminalName),
      let reason = TerminalWatch.unwatchedReason(
        pts: index, near: input.processID, programs: input.terminalPrograms, system)
    else { return verdict }
    return Verdict(isVisible: false, reason: verdict.reason + ", but " + reason)
  }

  /// The name, parent, process group, terminal and the terminal's foreground group from /proc/PID/stat
  /// ("PID (COMM) STATE PPID PGRP SESSION TTY_NR TPGID …"; COMM may hold spaces and ")").
  static func processTerminal(_ pid: Int32, _ system: System) -> ProcessTerminal? {
    guard pid >= 1, let bytes = system.read("/proc/\(pid)/stat", 4096), let stat = ProcessFile.Stat(bytes, count: 6),
      let parent = stat.numbers[1], let group = stat.numbers[2], let terminal = stat.numbers[4],
      let foreground = stat.numbers[5]
    else { return nil }
    return ProcessTerminal(
      name: stat.name, parent: parent, group: group, terminal: terminal, foregroundGroup: foreground)
  }

  /// The terminal's name for a `tty_nr` device number (Linux's encoding: minor bits 0–7 and 20–31, major 8–19).
  static func terminalName(_ device: Int32) -> String {
    let value = UInt32(bitPattern: device)
    let major = (value >> 8) & 0xFFF
    let minor = (value & 0xFF) | ((value >> 12) & 0xFFF00)
    if major >= 136 && major <= 143 { return "pts/\((major - 136) * 256 + minor)" }
    if major == 4 && minor < 64 { return "tty\(minor)" }
    if major == 4 { return "ttyS\(minor - 64)" }
    return "terminal \(major):\(minor)"
  }

  /// `text` as a log-safe token.
  static func printable(_ text: String) -> String { RemoteSession.printable(text) }
}
