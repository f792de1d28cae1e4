@testable import LocalAuthCore
import Testing

/// docs/RULES.md, "Intent": a pseudo-terminal nobody watches gets no finger (issue 27, findings 6 and 7). The
/// /proc files are fakes: who holds each master (/proc/PID/fd and fdinfo's tty-index), the executables, the
/// terminals a multiplexer server has open.
@Suite("Intent: a terminal nobody watches")
struct TerminalWatchTests {
  typealias FakeProc = IntentTests.FakeProc
  static let pts3 = IntentTests.pts3
  static let pts4 = IntentTests.pts4

  /// sudo (200) below bash (100) in the foreground of pts/3, whose master nobody holds yet.
  static func sudoOnPts3(shellParent: Int32) -> FakeProc {
    var proc = FakeProc()
    proc.add(100, "bash", parent: shellParent, group: 100, tty: pts3, foreground: 200)
    proc.add(200, "sudo", parent: 100, group: 200, tty: pts3, foreground: 200, cmdline: ["sudo", "-k", "id"])
    return proc
  }

  /// A terminal emulator (pid 50) that holds and shows pts/`index`.
  static func emulator(_ proc: inout FakeProc, showing index: Int) {
    proc.add(50, "gnome-terminal-", parent: 1, group: 50, tty: 0, foreground: -1)
    proc.exe(50, "/usr/libexec/gnome-terminal-server")
    proc.holdMaster(50, index, fd: 9)
  }

  static func check(_ proc: FakeProc, programs: [String] = RequestVisibility.defaultTerminalPrograms) -> RequestVisibility.Verdict {
    RequestVisibility.check(
      .init(service: "sudo", processID: 200, guiServices: [], terminalPrograms: programs), system: proc.system)
  }

  static let visiblePrefix = "process 200 (sudo) and its parent process 100 (bash) are in the foreground of pts/3"

  @Test("`setsid -f script -qfc \"sudo …\"` with no terminal: script holds the master and nobody watches it")
  func scriptWithoutTerminal() {
    var proc = Self.sudoOnPts3(shellParent: 40)
    proc.add(40, "script", parent: 1, group: 40, tty: 0, foreground: -1)
    proc.exe(40, "/usr/bin/script")
    proc.holdMaster(40, 3)
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason == Self.visiblePrefix
      + ", but the master of pts/3 is held by process 40 (script), but process 40 (script) has no controlling terminal")
  }

  @Test("script run in the foreground of a terminal emulator's terminal is watched; in a hidden one it is not")
  func scriptInVisibleTerminal() {
    var proc = Self.sudoOnPts3(shellParent: 40)
    proc.add(40, "script", parent: 30, group: 40, tty: Self.pts4, foreground: 40)
    proc.exe(40, "/usr/bin/script")
    proc.holdMaster(40, 3)
    proc.open(40, "pts/4", fd: 1)
    proc.add(30, "bash", parent: 50, group: 30, tty: Self.pts4, foreground: 40)
    Self.emulator(&proc, showing: 4)
    #expect(Self.check(proc).isVisible, "\(Self.check(proc).reason)")
    // The same script, but pts/4's master is held by another script started without a terminal.
    proc.add(50, "script", parent: 1, group: 50, tty: 0, foreground: -1)
    proc.exe(50, "/usr/bin/script")
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason == Self.visiblePrefix
      + ", but the master of pts/3 is held by process 40 (script), in the foreground of pts/4, but the master of "
      + "pts/4 is held by process 50 (script), but process 50 (script) has no controlling terminal")
    // script whose output does not go to the terminal it is in the foreground of shows nothing (issue 37, W).
    Self.emulator(&proc, showing: 4)
    proc.open(40, "null", fd: 1)
    let silent = Self.check(proc)
    #expect(!silent.isVisible)
    #expect(silent.reason == Self.visiblePrefix
      + ", but the master of pts/3 is held by process 40 (script), in the foreground of pts/4, whose output goes to "
      + "/dev/null, not to that terminal")
  }

  @Test("a terminal emulator is watched only when terminal_programs names it and it is a root-owned system program")
  func terminalEmulator() {
    var proc = Self.sudoOnPts3(shellParent: 50)
    Self.emulator(&proc, showing: 3)
    #expect(Self.check(proc).isVisible)
    #expect(!Self.check(proc, programs: []).isVisible)
    #expect(Self.check(proc, programs: ["xterm", "gnome-terminal-server"]).isVisible)
    // A copy the user owns, or one outside the system folders, under the same name.
    proc.exe(50, "/usr/libexec/gnome-terminal-server", owner: 1000)
    #expect(!Self.check(proc).isVisible)
    proc.exe(50, "/usr/libexec/gnome-terminal-server", mode: 0o777)
    #expect(!Self.check(proc).isVisible)
    proc.exe(50, "/home/alice/gnome-terminal-server")
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason.hasSuffix(
      "held by process 50 (gnome-terminal-server), which is not a system program that shows it (process 50 runs "
        + "/home/alice/gnome-terminal-server, which is not in a system folder)"), "\(verdict.reason)")
  }

  @Test("a master held by root is root's terminal; one held by sshd is remote; none found is not watched")
  func rootAndNetworkHolders() {
    var proc = Self.sudoOnPts3(shellParent: 60)
    proc.add(60, "python3", parent: 1, group: 60, tty: 0, foreground: -1, uid: 0)
    proc.exe(60, "/usr/bin/python3.11")
    proc.holdMaster(60, 3)
    #expect(Self.check(proc).isVisible)
    proc.add(60, "sshd-session", parent: 1, group: 60, tty: 0, foreground: -1, uid: 0)
    proc.exe(60, "/usr/lib/openssh/sshd-session")
    #expect(Self.check(proc).reason.hasSuffix("held by process 60 (sshd-session), a network login"))
    #expect(!Self.check(proc).isVisible)
    // The holder is no ancestor: the scan of /proc finds it.
    var scanned = Self.sudoOnPts3(shellParent: 1)
    Self.emulator(&scanned, showing: 3)
    #expect(Self.check(scanned).isVisible)
    let nobody = Self.check(Self.sudoOnPts3(shellParent: 1))
    #expect(!nobody.isVisible)
    #expect(nobody.reason == Self.visiblePrefix + ", but no process holding the master of pts/3 can be found")
  }

  // MARK: Multiplexers

  /// A tmux server (pid 60, the user's) holding pts/3's master (sudo's pane) and the client's terminal pts/4;
  /// the client (pid 70) in the foreground of pts/4, shown by a terminal emulator.
  static func tmux() -> FakeProc {
    var proc = sudoOnPts3(shellParent: 60)
    proc.add(60, "tmux: server", parent: 1, group: 60, tty: 0, foreground: -1)
    proc.exe(60, "/usr/bin/tmux")
    proc.holdMaster(60, 3)
    proc.open(60, "pts/4", fd: 7)
    proc.add(65, "bash", parent: 50, group: 65, tty: pts4, foreground: 70)
    proc.add(70, "tmux: client", parent: 65, group: 70, tty: pts4, foreground: 70)
    proc.exe(70, "/usr/bin/tmux")
    proc.connect(60, fd: 8, to: 70)
    emulator(&proc, showing: 4)
    return proc
  }

  @Test("a tmux pane is watched when the server shows one pane and a client is in the foreground of a watched terminal")
  func tmuxOnePaneLocalClient() {
    let verdict = Self.check(Self.tmux())
    #expect(verdict.isVisible, "\(verdict.reason)")
  }

  @Test("a tmux server with two panes (`tmux new-window -d \"sudo …\"`): the request may be in a window nobody sees")
  func tmuxTwoPanes() {
    var proc = Self.tmux()
    proc.holdMaster(60, 5, fd: 9)
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason == Self.visiblePrefix
      + ", but process 60 (tmux), which holds the master of pts/3, shows 2 pseudo-terminals (panes or windows), so "
      + "its clients may not show this one")
  }

  @Test("a tmux server with no client, or whose client is on an SSH terminal or a hidden one, is not watched")
  func tmuxWithoutWatchedClient() {
    var detached = Self.tmux()
    detached.folders["/proc/60/fd"] = ["5"]
    let verdict = Self.check(detached)
    #expect(!verdict.isVisible)
    #expect(verdict.reason == Self.visiblePrefix
      + ", but process 60 (tmux), which holds the master of pts/3, has no connected client in the foreground of a "
      + "watched terminal")
    // The client's terminal is held by sshd: a remote client.
    var remote = Self.tmux()
    remote.add(50, "sshd-session", parent: 1, group: 50, tty: 0, foreground: -1, uid: 0)
    remote.exe(50, "/usr/lib/openssh/sshd-session")
    #expect(!Self.check(remote).isVisible)
    #expect(Self.check(remote).reason.hasSuffix("the master of pts/4 is held by process 50 (sshd-session), a network login"))
    // A client of another user's, or in the background of its terminal, is no client.
    var stranger = Self.tmux()
    stranger.add(70, "tmux: client", parent: 65, group: 70, tty: Self.pts4, foreground: 70, uid: 1001)
    #expect(!Self.check(stranger).isVisible)
    var background = Self.tmux()
    background.add(70, "tmux: client", parent: 65, group: 70, tty: Self.pts4, foreground: 65)
    #expect(!Self.check(background).isVisible)
    // A tmux that is not the system's program is no multiplexer.
    var copied = Self.tmux()
    copied.exe(60, "/home/alice/bin/tmux", owner: 1000)
    #expect(!Self.check(copied).isVisible)
  }

  @Test("terminal_programs parses; a bad name is an error; the report names it")
  func options() throws {
    #expect(try OptionParser.parse(arguments: ["terminal_programs=xterm,foot"], readFile: { _ in nil }).options.terminalPrograms == ["xterm", "foot"])
    #expect(try OptionParser.parse(arguments: ["terminal_programs="], readFile: { _ in nil }).options.terminalPrograms == [])
    #expect(throws: ConfigError.self) { try OptionParser.parse(arguments: ["terminal_programs=a b"], readFile: { _ in nil }) }
    #expect(Options().terminalPrograms.contains("gnome-terminal-server") && !Options().terminalPrograms.contains("sshd"))
    #expect(Options().settingLines.contains("terminal_programs=" + RequestVisibility.defaultTerminalPrograms.joined(separator: ",")))
  }
}
