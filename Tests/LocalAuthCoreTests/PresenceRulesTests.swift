@testable import LocalAuthCore
import Testing

/// Issue 37: the intent rules over the process model, against what malware running as the user can arrange. Each
/// test is a recorded /proc (`IntentTests.FakeProc`): the findings' process trees, and the same trees as the
/// user's own programs make them.
@Suite("Presence: rules the user's own programs cannot arrange")
struct PresenceRulesTests {
  typealias FakeProc = IntentTests.FakeProc
  static let pts3 = IntentTests.pts3
  static let pts4 = IntentTests.pts4
  static let pts5: Int32 = 136 << 8 | 5

  static func check(_ proc: FakeProc, pid: Int32 = 200, service: String = "sudo", uid: UInt32 = 1000, gui: [String] = [])
    -> RequestVisibility.Verdict
  {
    RequestVisibility.check(
      .init(service: service, processID: pid, requesterUID: uid, guiServices: gui), system: proc.system)
  }

  /// Sets `pid`'s terminal session (its leader) in its stat line.
  static func session(_ proc: inout FakeProc, _ pid: Int32, leader: Int32) {
    let text = String(decoding: proc.files["/proc/\(pid)/stat"]!, as: UTF8.self)
    var fields = text.split(separator: " ").map(String.init)
    fields[5] = "\(leader)"
    proc.files["/proc/\(pid)/stat"] = Array(fields.joined(separator: " ").utf8)
  }

  @Test("P: a master held by the user's interactive shell (`exec 9<>/dev/ptmx`) leaves its pty unwatched")
  func shellHoldingMaster() {
    var proc = IntentTests.foregroundSudo()  // the emulator shows pts/3, bash (100) is its shell
    proc.exe(100, "/usr/bin/bash")
    proc.holdMaster(100, 5, fd: 9)
    // A `setsid -f` daemon (290) opened pts/5's slave and runs sudo (300) on it, then closed its copy of the master.
    proc.add(290, "sh", parent: 1, group: 290, tty: Self.pts5, foreground: 300)
    proc.add(300, "sudo", parent: 290, group: 300, tty: Self.pts5, foreground: 300)
    let verdict = Self.check(proc, pid: 300)
    #expect(!verdict.isVisible)
    #expect(verdict.reason.hasSuffix(
      "but the master of pts/5 is held by process 100 (bash), which is not a terminal emulator, multiplexer or relay"),
      "\(verdict.reason)")
  }

  @Test("P: every holder counts: the emulator and a daemon of the user's both holding pts/3's master")
  func everyHolder() {
    var proc = IntentTests.foregroundSudo()
    #expect(Self.check(proc).isVisible, "\(Self.check(proc).reason)")
    proc.add(290, "sleep", parent: 1, group: 290, tty: 0, foreground: -1)
    proc.exe(290, "/usr/bin/sleep")
    proc.holdMaster(290, 3, fd: 3)
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason.hasSuffix("held by process 290 (sleep), which is not a terminal emulator, multiplexer or relay"))
    // A holder whose descriptors cannot be read might be anyone: the scan is not whole.
    var unreadable = IntentTests.foregroundSudo()
    unreadable.add(290, "x", parent: 1, group: 290, tty: 0, foreground: -1)
    unreadable.folders["/proc/290/fd"] = nil
    #expect(Self.check(unreadable).reason.hasSuffix("the processes holding the master of pts/3 cannot all be read"))
  }

  /// A tmux server (60) holding pts/3 (sudo's pane) and the user's console terminal pts/4, shown by the emulator,
  /// where the user's real tmux client (70) is in the foreground.
  static func consoleWithTmuxClient() -> FakeProc {
    var proc = TerminalWatchTests.tmux()
    proc.folders["/proc/60/fd"] = ["5", "7"]  // no client connected to this server
    return proc
  }

  @Test("T: a tmux server with the user's terminal open but no connected client shown there is not watched")
  func fakeMultiplexer() {
    let proc = Self.consoleWithTmuxClient()
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason.hasSuffix(
      "process 60 (tmux), which holds the master of pts/3, has no connected client in the foreground of a watched terminal"))
    // Connected to a process that is not the system's tmux, or not in the foreground: no client.
    var impostor = proc
    impostor.add(80, "tmux: client", parent: 1, group: 80, tty: Self.pts4, foreground: 70)
    impostor.exe(80, "/usr/bin/tmux")
    impostor.connect(60, fd: 8, to: 80)
    #expect(!Self.check(impostor).isVisible)
    #expect(Self.check(impostor).reason.contains("is in background process group 80 of pts/4"))
    // The real tmux binary started with a library of its own is no system program.
    var preloaded = TerminalWatchTests.tmux()
    preloaded.map(60, "/tmp/fake.so", owner: 1000)
    #expect(!Self.check(preloaded).isVisible)
    #expect(Self.check(preloaded).reason.contains("with /tmp/fake.so mapped, which is not in a system folder"))
    // The genuine pane: connected to the client the emulator shows.
    #expect(Self.check(TerminalWatchTests.tmux()).isVisible)
  }

  @Test("U: a terminal emulator with a library of its own, or traced, shows nothing")
  func emulatorStrict() {
    var proc = IntentTests.foregroundSudo()
    proc.map(50, "/home/alice/.local/lib/hook.so", owner: 1000)
    #expect(!Self.check(proc).isVisible)
    var traced = IntentTests.foregroundSudo()
    traced.files["/proc/50/status"] = Array("Name:\tx\nUid:\t1000\t0\t0\t0\nTracerPid:\t4242\n".utf8)
    #expect(Self.check(traced).reason.hasSuffix("which is traced or whose tracer cannot be read)"), "\(Self.check(traced).reason)")
  }

  @Test("W: a foreground taken from a shell that is still reading the terminal is not handed over")
  func borrowedForeground() {
    var proc = IntentTests.foregroundSudo()
    Self.session(&proc, 200, leader: 100)
    proc.open(100, "pts/3", fd: 0)
    // bash waits for its foreground job (wait4): handed over.
    proc.files["/proc/100/syscall"] = Array("61 0xffffffffffffffff 0x7ffc 0x2 0x0 0x0 0x0 0x7ffc 0x7f00\n".utf8)
    #expect(Self.check(proc).isVisible, "\(Self.check(proc).reason)")
    // bash is blocked reading pts/3 (read(0, …)): a background job took the foreground.
    proc.files["/proc/100/syscall"] = Array("\(Syscalls.inputSyscallNumbers.read) 0x0 0x7ffc 0x1 0x0 0x0 0x0 0x7ffc 0x7f00\n".utf8)
    let verdict = Self.check(proc)
    #expect(!verdict.isVisible)
    #expect(verdict.reason == "process 200 (sudo) is in the foreground of pts/3, but the terminal's shell, process 100 "
      + "(bash), is still reading it: the foreground was taken, not handed over")
    // Debian's bash waits in pselect6(1, {0}, …): the read set, from its memory, holds the terminal.
    proc.files["/proc/100/syscall"] = Array("\(Syscalls.inputSyscallNumbers.pselect6) 0x1 0x7ffc1000 0x0 0x0 0x0 0x7ffc 0x7f00\n".utf8)
    proc.memory["100@\(0x7ffc1000)"] = [1, 0, 0, 0, 0, 0, 0, 0]
    #expect(!Self.check(proc).isVisible)
    // zsh-like: ppoll on {fd 0, POLLIN} and a pipe.
    proc.files["/proc/100/syscall"] = Array("\(Syscalls.inputSyscallNumbers.ppoll) 0x7ffc2000 0x2 0x0 0x0 0x0 0x7ffc 0x7f00\n".utf8)
    proc.memory["100@\(0x7ffc2000)"] = [0, 0, 0, 0, 1, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0]
    #expect(!Self.check(proc).isVisible)
    // A set that cannot be read, or a wait on something else (a pipe, fd 7), is no sign.
    proc.memory["100@\(0x7ffc2000)"] = [7, 0, 0, 0, 1, 0, 0, 0]
    #expect(Self.check(proc).isVisible)
    proc.memory = [:]
    #expect(Self.check(proc).isVisible)
    // Reading something else (a file, a pipe) is no sign.
    proc.files["/proc/100/syscall"] = Array("\(Syscalls.inputSyscallNumbers.read) 0x0 0x7ffc 0x1 0x0 0x0 0x0 0x7ffc 0x7f00\n".utf8)
    proc.open(100, "null", fd: 0)
    #expect(Self.check(proc).isVisible)
    // The verdict names the foreground it relied on, for the wait's re-check.
    #expect(Self.check(proc).watchState == [Self.pts3, 200])
  }

  @Test("S: polkit's helper started by hand gets no finger; under a polkit agent that is a system program it does")
  func polkitHelper() {
    var proc = FakeProc()
    proc.add(400, "polkit-agent-he", parent: 1, group: 400, tty: 0, foreground: -1)
    proc.exe(400, "/usr/lib/polkit-1/polkit-agent-helper-1")
    proc.add(1, "init", parent: 0, group: 1, tty: 0, foreground: -1, uid: 0)
    proc.exe(1, "/usr/lib/systemd/systemd")
    let gui = RequestVisibility.defaultGUIServices
    let byHand = Self.check(proc, pid: 400, service: "polkit-1", gui: gui)
    #expect(!byHand.isVisible)
    #expect(byHand.reason == "polkit-agent-helper-1 (process 400) was not started by a polkit agent that is a system "
      + "program (parent: process 1 runs systemd)")
    // Root's own request (a display manager, pamtester as root) keeps gui_services as it was.
    #expect(Self.check(proc, pid: 400, service: "polkit-1", uid: 0, gui: gui).isVisible)
    // Under GNOME Shell's agent.
    proc.add(350, "gnome-shell", parent: 1, group: 350, tty: 0, foreground: -1)
    proc.exe(350, "/usr/bin/gnome-shell")
    proc.add(400, "polkit-agent-he", parent: 350, group: 400, tty: 0, foreground: -1)
    #expect(Self.check(proc, pid: 400, service: "polkit-1", gui: gui).isVisible)
    // Under pkttyagent: only in the foreground of a watched terminal.
    var tty = IntentTests.foregroundSudo()
    tty.add(200, "pkttyagent", parent: 100, group: 200, tty: Self.pts3, foreground: 200)
    tty.exe(200, "/usr/bin/pkttyagent")
    tty.add(400, "polkit-agent-he", parent: 200, group: 400, tty: 0, foreground: -1)
    tty.exe(400, "/usr/lib/polkit-1/polkit-agent-helper-1")
    #expect(Self.check(tty, pid: 400, service: "polkit-1", gui: gui).isVisible, "\(Self.check(tty, pid: 400, service: "polkit-1", gui: gui).reason)")
    tty.add(200, "pkttyagent", parent: 100, group: 200, tty: Self.pts3, foreground: 100)
    #expect(!Self.check(tty, pid: 400, service: "polkit-1", gui: gui).isVisible)
  }

  @Test("Q: a GUI name is not presence: for a caller that is not root, only a system program's counts")
  func guiNameStrict() {
    var proc = FakeProc()
    proc.add(500, "i3lock", parent: 1, group: 500, tty: 0, foreground: -1)
    proc.exe(500, "/usr/bin/i3lock")
    let gui = RequestVisibility.defaultGUIServices
    #expect(Self.check(proc, pid: 500, service: "i3lock", gui: gui).isVisible)
    proc.map(500, "/tmp/x.so", owner: 1000)
    let verdict = Self.check(proc, pid: 500, service: "i3lock", gui: gui)
    #expect(!verdict.isVisible)
    #expect(verdict.reason == "service i3lock is named in gui_services, but its caller is not a system program "
      + "(process 500 runs /usr/bin/i3lock, with /tmp/x.so mapped, which is not in a system folder)")
  }
}
