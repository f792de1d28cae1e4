/// Decides whether someone watches a pseudo-terminal (docs/RULES.md, "Intent"): a process in the foreground of
/// pts/N is only as visible as the program that holds pts/N's master and shows what is written to it.
///
/// The holder is found from the kernel's word: a descriptor of /dev/ptmx in /proc/PID/fd whose
/// /proc/PID/fdinfo names `tty-index: N` (the asking process's ancestors first, then a bounded scan of /proc).
/// pts/N is watched when its holder
/// - runs as root and is not a network login daemon: only root made that terminal (sudo's `use_pty`, a console
///   of root's), and root needs nothing from a finger;
/// - is itself in the foreground of a terminal that is watched (`script` run in a visible terminal; a console),
///   at most `maximumDepth` terminals deep;
/// - is a terminal emulator the administrator names (`terminal_programs=`), by the name of its executable, which
///   must be a root-owned system program (`SystemProgram.systemName`: /usr/bin, /usr/sbin, /bin, /sbin, below
///   /usr/libexec or /usr/lib); or
/// - is a multiplexer (tmux, screen; a system program too) showing exactly one pseudo-terminal, one pane, and
///   showing it on a client's terminal that is watched: a tmux or screen process of the server's user (or root's)
///   in the foreground of a terminal the server holds open. With two panes, a window the user does not look at
///   may hold the request (`ssh host 'tmux new-window -d "sudo …"'`), so the passcode is asked.
/// A holder that cannot be found or read, a network login daemon (its terminal is remote) or anything else (a
/// `script` started with no terminal, a daemon of the user's) leaves pts/N unwatched.
enum TerminalWatch {
  /// The default `terminal_programs=`: terminal emulators, by the name of their executable.
  static let defaultPrograms = [
    "gnome-terminal-server", "konsole", "xterm", "alacritty", "kitty", "foot", "tilix", "xfce4-terminal",
    "mate-terminal", "lxterminal", "terminator", "urxvt", "rxvt", "wezterm-gui", "kgx", "ptyxis-agent",
  ]
  /// Multiplexers, by the name of their executable.
  static let multiplexers: Set<String> = ["tmux", "screen"]
  /// The most pseudo-terminals followed from the asking one (script in script in a terminal emulator).
  static let maximumDepth = 4
  /// The most processes listed when the holder is not an ancestor.
  static let maximumProcesses = 8192
  /// The most descriptors examined in one process.
  static let maximumDescriptors = 1024
  /// The most ancestors examined before the scan.
  static let maximumAncestors = 16
  /// The most client terminals of a multiplexer examined.
  static let maximumClients = 8

  typealias System = RequestVisibility.System

  /// Why pts/`index` is not watched; nil when it is. `near` is the process on it that asks (its ancestors are
  /// searched first); `programs` is `terminal_programs=`.
  static func unwatchedReason(
    pts index: Int, near pid: Int32, programs: [String], _ system: System, depth: Int = 0
  ) -> String? {
    let terminal = "pts/\(index)"
    guard depth < maximumDepth else { return "\(terminal) is nested in more than \(maximumDepth) pseudo-terminals" }
    guard let holder = holder(of: index, near: pid, system) else {
      return "no process holding the master of \(terminal) can be found"
    }
    guard let process = RequestVisibility.processTerminal(holder, system) else {
      return "the process \(holder) holding the master of \(terminal) cannot be read"
    }
    let executable = system.readLink("/proc/\(holder)/exe")
    let name = executable.map(baseName) ?? process.name
    let who = "process \(holder) (\(RequestVisibility.printable(name)))"
    if RemoteSession.networkDaemons.contains(name) || RemoteSession.networkDaemons.contains(process.name) {
      return "the master of \(terminal) is held by \(who), a network login"
    }
    if RemoteSession.statusUID(holder, system.read) == 0 { return nil }
    // (a) The holder is itself in the foreground of a watched terminal.
    if process.terminal != 0, process.foregroundGroup == process.group {
      guard let inner = ptsIndex(process.terminalName) else { return nil }
      guard let reason = unwatchedReason(pts: inner, near: holder, programs: programs, system, depth: depth + 1)
      else { return nil }
      return "the master of \(terminal) is held by \(who), in the foreground of \(process.terminalName), but \(reason)"
    }
    let systemProgram = executable.map { Self.isSystemProgram($0, system) } ?? false
    // (b) A terminal emulator the administrator names.
    if programs.contains(name), systemProgram { return nil }
    // (c) A multiplexer with one pane shown on a watched terminal.
    if multiplexers.contains(name), systemProgram {
      return multiplexerReason(holder, who: who, name: name, pts: index, programs: programs, system, depth: depth)
    }
    let named = programs.contains(name) ? ", named in terminal_programs but not a root-owned system program" : ""
    return "the master of \(terminal) is held by \(who)\(named), which is not in the foreground of a terminal"
  }

  /// Why the multiplexer `server` does not show pts/`index` to anyone; nil when it does.
  static func multiplexerReason(
    _ server: Int32, who: String, name: String, pts index: Int, programs: [String], _ system: System, depth: Int
  ) -> String? {
    let descriptors = self.descriptors(of: server, system)
    let masters = descriptors.filter { isMaster($0.target) }.count
    guard masters == 1 else {
      return "\(who), which holds the master of pts/\(index), shows \(masters) pseudo-terminals (panes or windows), "
        + "so its clients may not show this one"
    }
    let serverUID = RemoteSession.statusUID(server, system.read)
    var terminals: [String] = []
    for descriptor in descriptors where descriptor.target.hasPrefix("/dev/") && !isMaster(descriptor.target) {
      let terminal = String(descriptor.target.dropFirst("/dev/".count))
      let isTerminal = ptsIndex(terminal) != nil || (terminal.hasPrefix("tty") && terminal != "tty")
      if isTerminal, !terminals.contains(terminal) { terminals.append(terminal) }
      if terminals.count >= maximumClients { break }
    }
    var why: [String] = []
    for terminal in terminals {
      guard let client = client(on: terminal, named: name, uid: serverUID, system) else { continue }
      guard let inner = ptsIndex(terminal) else { return nil }  // a console
      guard let reason = unwatchedReason(pts: inner, near: client, programs: programs, system, depth: depth + 1) else {
        return nil
      }
      why.append(reason)
    }
    let detail = why.first.map { ": \($0)" } ?? ""
    return "\(who), which holds the master of pts/\(index), has no client in the foreground of a watched terminal\(detail)"
  }

  /// A process named `name` (by its executable) of user `uid` or root's, in the foreground of `terminal`.
  static func client(on terminal: String, named name: String, uid: UInt32?, _ system: System) -> Int32? {
    for pid in processes(system) {
      guard let process = RequestVisibility.processTerminal(pid, system), process.terminal != 0,
        process.terminalName == terminal, process.foregroundGroup == process.group,
        system.readLink("/proc/\(pid)/exe").map(baseName) == name
      else { continue }
      let owner = RemoteSession.statusUID(pid, system.read)
      if owner == 0 || (owner != nil && owner == uid) { return pid }
    }
    return nil
  }

  /// The process holding the master of pts/`index`: an ancestor of `pid`, else the first found in /proc.
  static func holder(of index: Int, near pid: Int32, _ system: System) -> Int32? {
    var seen: [Int32] = []
    var current = RequestVisibility.processTerminal(pid, system)?.parent ?? 0
    for _ in 0..<maximumAncestors where current > 1 && !seen.contains(current) {
      if holds(current, index, system) { return current }
      seen.append(current)
      current = RequestVisibility.processTerminal(current, system)?.parent ?? 0
    }
    for candidate in processes(system) where !seen.contains(candidate) && candidate != pid {
      if holds(candidate, index, system) { return candidate }
    }
    return nil
  }

  /// True when `pid` has a descriptor of the master of pts/`index`.
  static func holds(_ pid: Int32, _ index: Int, _ system: System) -> Bool {
    descriptors(of: pid, system).contains { isMaster($0.target) && masterIndex(pid, $0.number, system) == index }
  }

  /// The open descriptors of `pid` and what they link to (at most `maximumDescriptors`).
  static func descriptors(of pid: Int32, _ system: System) -> [(number: String, target: String)] {
    guard let names = system.list("/proc/\(pid)/fd", maximumDescriptors) else { return [] }
    return names.compactMap { name in system.readLink("/proc/\(pid)/fd/\(name)").map { (name, $0) } }
  }

  /// The pseudo-terminal index of a master descriptor, from /proc/PID/fdinfo/FD's `tty-index:` line.
  static func masterIndex(_ pid: Int32, _ fd: String, _ system: System) -> Int? {
    guard let bytes = system.read("/proc/\(pid)/fdinfo/\(fd)", 4096) else { return nil }
    for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n") where line.hasPrefix("tty-index:") {
      return Int(String(line.dropFirst("tty-index:".count)).trimmingWhitespace())
    }
    return nil
  }

  /// The pids in /proc, at most `maximumProcesses`.
  static func processes(_ system: System) -> [Int32] {
    (system.list("/proc", maximumProcesses + 64) ?? []).compactMap { Int32($0) }.prefix(maximumProcesses).map { $0 }
  }

  /// True for the multiplexing device (devpts's own `ptmx` through a bind mount included).
  static func isMaster(_ target: String) -> Bool { target == "/dev/ptmx" || target == "/dev/pts/ptmx" }

  /// N for "pts/N".
  static func ptsIndex(_ terminal: String) -> Int? {
    guard terminal.hasPrefix("pts/") else { return nil }
    return Int(terminal.dropFirst("pts/".count))
  }

  /// The last component of a path.
  static func baseName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }

  /// True for an executable in a system folder (`SystemProgram.systemName`: /usr/bin, /usr/sbin, /bin, /sbin, below
  /// /usr/libexec or /usr/lib) that root owns and nobody else may write (a program the administrator installed, not
  /// a copy of the user's), as /proc/PID/exe names it (" (deleted)" is not).
  static func isSystemProgram(_ path: String, _ system: System) -> Bool {
    guard SystemProgram.systemName(path) != nil, let owner = system.owner(path) else { return false }
    return owner.uid == 0 && owner.mode & 0o022 == 0
  }
}
