/// Decides whether someone watches a pseudo-terminal (docs/RULES.md, "Intent"; docs/THREATS.md): a process in the
/// foreground of pts/N is only as visible as the programs that hold pts/N's master and show what is written to it.
///
/// Every holder counts, found from the kernel's word: each process's descriptors of /dev/ptmx whose
/// /proc/PID/fdinfo names `tty-index: N`, over the whole of /proc (a scan that cannot be made whole leaves pts/N
/// unwatched). pts/N is watched only when every holder
/// - runs as root and is not a network login daemon: only root made that terminal (sudo's `use_pty`, a console
///   of root's), and root needs nothing from a finger;
/// - is a terminal emulator the administrator names (`terminal_programs=`) and a system program (`SystemProgram`:
///   its executable and every executable mapping root's, in system folders, not traced);
/// - is a relay (`script`, a system program) in the foreground of a watched terminal, handed to it by that
///   terminal's shell (`Foreground`), with its standard output on that terminal: it shows what it relays; or
/// - is a multiplexer (tmux, a system program) showing exactly one pseudo-terminal, one pane, to a client tied to
///   it by the kernel (the peer of one of the server's Unix sockets, SO_PEERCRED): the same system program, of the
///   server's user or root's, in the foreground of a watched terminal the server has open. With two panes, a
///   window the user does not look at may hold the request (`ssh host 'tmux new-window -d "sudo …"'`); a process
///   that merely has the user's terminal open proves nothing.
/// Anything else (an interactive shell holding a master it opened, a daemon of the user's, a program started with
/// a library of its own) leaves pts/N unwatched.
package enum TerminalWatch {
  /// The default `terminal_programs=`: terminal emulators, by the name of their executable.
  static let defaultPrograms = [
    "gnome-terminal-server", "konsole", "xterm", "alacritty", "kitty", "foot", "tilix", "xfce4-terminal",
    "mate-terminal", "lxterminal", "terminator", "urxvt", "rxvt", "wezterm-gui", "kgx", "ptyxis-agent",
  ]
  /// Multiplexers whose clients stay connected to the server, by the name of their executable. GNU screen's
  /// clients do not keep a connection, so nothing ties a screen window to what a client shows: it is not here.
  static let multiplexers: Set<String> = ["tmux"]
  /// Programs that copy a pseudo-terminal to their own standard output, by the name of their executable.
  static let relays: Set<String> = ["script"]
  /// The most pseudo-terminals followed from the asking one (script in script in a terminal emulator).
  static let maximumDepth = 4
  /// The most sockets of a multiplexer server asked for their peer.
  static let maximumSockets = 64

  /// Why pts/`index` is not watched; nil when it is. `programs` is `terminal_programs=`.
  package static func unwatchedReason(
    pts index: Int, programs: [String], _ snapshot: ProcessSnapshot, depth: Int = 0
  ) -> String? {
    let terminal = "pts/\(index)"
    guard depth < maximumDepth else { return "\(terminal) is nested in more than \(maximumDepth) pseudo-terminals" }
    guard let holders = snapshot.holders(ofPts: index) else {
      return "the processes holding the master of \(terminal) cannot all be read"
    }
    guard !holders.isEmpty else { return "no process holding the master of \(terminal) can be found" }
    for holder in holders {
      if let why = holderReason(holder, pts: index, programs: programs, snapshot, depth: depth) { return why }
    }
    return nil
  }

  /// Why `holder`, which holds the master of pts/`index`, does not show it; nil when it does.
  static func holderReason(
    _ holder: Int32, pts index: Int, programs: [String], _ snapshot: ProcessSnapshot, depth: Int
  ) -> String? {
    let terminal = "pts/\(index)"
    let name = snapshot.programName(holder)
    let who = "process \(holder) (\(LogText.token(name)))"
    if RemoteSession.networkDaemons.contains(name) || snapshot.stat(holder).map({ RemoteSession.networkDaemons.contains($0.name) }) == true {
      return "the master of \(terminal) is held by \(who), a network login"
    }
    if snapshot.realUID(holder) == 0 { return nil }
    let program = snapshot.systemProgram(holder)
    guard let systemName = program.name else {
      let named = programs.contains(name) || multiplexers.contains(name) || relays.contains(name)
      let detail = named ? " (\(program.reason))" : ""
      return "the master of \(terminal) is held by \(who), which is not a system program that shows it\(detail)"
    }
    if programs.contains(systemName) { return nil }
    if relays.contains(systemName) { return relayReason(holder, who: who, pts: index, programs: programs, snapshot, depth: depth) }
    if multiplexers.contains(systemName) {
      return multiplexerReason(holder, who: who, name: systemName, pts: index, programs: programs, snapshot, depth: depth)
    }
    return "the master of \(terminal) is held by \(who), which is not a terminal emulator, multiplexer or relay"
  }

  /// Why the relay `holder` (script) does not show pts/`index`; nil when it is in the foreground of a watched
  /// terminal, handed to it by that terminal's shell, and writes to that terminal.
  static func relayReason(
    _ holder: Int32, who: String, pts index: Int, programs: [String], _ snapshot: ProcessSnapshot, depth: Int
  ) -> String? {
    let prefix = "the master of pts/\(index) is held by \(who)"
    if let why = Foreground.reason(holder, snapshot) { return "\(prefix), but \(why)" }
    guard let stat = snapshot.stat(holder) else { return "\(prefix), which cannot be read" }
    let output = snapshot.descriptors(holder)?.first { $0.number == 1 }?.target
    guard let output, TerminalDevice.isTerminal(output, named: stat.terminalName) else {
      return "\(prefix), in the foreground of \(stat.terminalName), whose output goes to "
        + "\(LogText.token(output ?? "nowhere")), not to that terminal"
    }
    guard let inner = TerminalDevice.ptsIndex(stat.terminalName),
      let why = unwatchedReason(pts: inner, programs: programs, snapshot, depth: depth + 1)
    else { return nil }
    return "\(prefix), in the foreground of \(stat.terminalName), but \(why)"
  }

  /// Why the multiplexer `server` does not show pts/`index` to anyone; nil when it does.
  static func multiplexerReason(
    _ server: Int32, who: String, name: String, pts index: Int, programs: [String], _ snapshot: ProcessSnapshot,
    depth: Int
  ) -> String? {
    let masters = snapshot.masters(server)?.count ?? 0
    guard masters == 1 else {
      return "\(who), which holds the master of pts/\(index), shows \(masters) pseudo-terminals (panes or windows), "
        + "so its clients may not show this one"
    }
    let descriptors = snapshot.descriptors(server) ?? []
    let open = descriptors.compactMap { descriptor -> String? in
      descriptor.target.hasPrefix("/dev/") && !TerminalDevice.isMaster(descriptor.target)
        ? String(descriptor.target.dropFirst("/dev/".count)) : nil
    }
    let serverUID = snapshot.realUID(server)
    var why: [String] = []
    for socket in descriptors.filter({ $0.target.hasPrefix("socket:") }).prefix(maximumSockets) {
      guard let client = snapshot.facts.socketPeer(server, socket.number), client != server else { continue }
      let clientName = "client process \(client) (\(LogText.token(snapshot.programName(client))))"
      guard snapshot.systemProgram(client).name == name else {
        why.append("\(clientName) is not the system program \(name)")
        continue
      }
      let owner = snapshot.realUID(client)
      guard owner == 0 || (owner != nil && owner == serverUID) else {
        why.append("\(clientName) runs as another user")
        continue
      }
      if let reason = Foreground.reason(client, snapshot) {
        why.append(reason)
        continue
      }
      guard let stat = snapshot.stat(client), open.contains(stat.terminalName) else {
        why.append("\(clientName) is on a terminal the server does not have open")
        continue
      }
      guard let inner = TerminalDevice.ptsIndex(stat.terminalName) else { return nil }  // a console
      guard let reason = unwatchedReason(pts: inner, programs: programs, snapshot, depth: depth + 1) else { return nil }
      why.append(reason)
    }
    let detail = why.first.map { ": \($0)" } ?? ""
    return "\(who), which holds the master of pts/\(index), has no connected client in the foreground of a watched "
      + "terminal\(detail)"
  }
}
