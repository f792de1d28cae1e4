/// Whether a process holds the foreground of its terminal, handed to it by the terminal's shell (docs/RULES.md,
/// "Intent"; issue 37, finding W).
///
/// A process group is in the foreground of a terminal when the terminal's `tpgid` is its group. Any process of the
/// user may put its own group there (tcsetpgrp with SIGTTOU ignored), so being there proves little: a background
/// job can take the console's foreground for a moment, start a request, and give it back. A shell hands the
/// foreground to a job it runs and then waits for the job (wait4, sigsuspend); a shell whose foreground was taken
/// from it is still waiting for input from the terminal. So the foreground counts only when the terminal's session
/// leader (the shell) is itself in it, or is not blocked waiting to read that terminal: /proc/PID/syscall names the
/// call (read, select, pselect6, poll, ppoll) and the descriptors it waits on are read from the call's arguments
/// and, for the sets, the shell's memory (/proc/PID/mem; both root's to read). The wait's re-check catches a
/// foreground given back during the request.
enum Foreground {
  /// Why `pid` does not hold the foreground of its terminal by its shell's hand; nil when it does. Each terminal's
  /// foreground group consulted is noted in `snapshot` (the verdict's watch state).
  static func reason(_ pid: Int32, _ snapshot: ProcessSnapshot) -> String? {
    guard let stat = snapshot.stat(pid) else { return "process \(pid) cannot be read" }
    let who = "process \(pid) (\(LogText.token(snapshot.programName(pid))))"
    guard stat.terminal != 0 else { return "\(who) has no controlling terminal" }
    snapshot.noteForeground(stat)
    guard stat.foregroundGroup == stat.group else {
      return "\(who) is in background process group \(stat.group) of \(stat.terminalName), whose foreground group is "
        + "\(stat.foregroundGroup)"
    }
    let leader = stat.session
    guard leader >= 1, leader != pid, let shell = snapshot.stat(leader), shell.group != stat.foregroundGroup,
      shell.terminal == stat.terminal, let call = snapshot.blockedCall(leader),
      let awaited = snapshot.awaitedInput(leader, call),
      awaited.contains(where: { fd in
        snapshot.facts.readLink("/proc/\(leader)/fd/\(fd)").map { TerminalDevice.isTerminal($0, named: stat.terminalName) } == true
      })
    else { return nil }
    return "\(who) is in the foreground of \(stat.terminalName), but the terminal's shell, process \(leader) "
      + "(\(LogText.token(snapshot.programName(leader)))), is still reading it: the foreground was taken, not handed over"
  }
}
