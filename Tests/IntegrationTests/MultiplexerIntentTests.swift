import Foundation
import Testing

/// docs/RULES.md, "Intent", issue 27 finding 7, end to end: a tmux pane gets the finger only while the server shows
/// one pane and a client in the foreground of a watched terminal shows it. The user's tmux client runs on the
/// driver's pseudo-terminal (root's: watched), as it would in a console; the server is the user's.
extension IntentE2ETests {
  /// The user's shell line that runs tmux on a socket of its own (no configuration) with `command` as the first
  /// pane's command, and removes the socket's folder afterwards.
  static func tmux(_ command: String) -> [String] {
    let body = #"""
      d=$(mktemp -d) || exit 1
      TERM=xterm tmux -f /dev/null -S "$d/s" new-session -s main "$0"
      rm -rf "$d"
      i=0; while [ $i -lt 100 ] && pgrep -U "$(id -u)" -x sudo >/dev/null; do sleep 0.1; i=$((i+1)); done
      echo TMUX-DONE
      """#
    return ["/bin/sh", "-c", body, command]
  }

  @Test("a second tmux window made with `new-window -d` runs sudo: no finger prompt listed (the window is not shown)")
  func sudoInHiddenTmuxWindow() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    // The first pane makes a detached window running sudo (as `ssh U@host 'tmux new-window -d …'` does into a
    // server started at the console), waits while the probe looks for a listed prompt, and ends the server: its
    // sudo gets SIGHUP.
    let pane = #"tmux -S "$(echo "$TMUX" | cut -d, -f1)" new-window -d "sudo -k /bin/sh -c 'echo RAN-\$((6*7))'; sleep 30"; "#
      + #"sleep 5; tmux -S "$(echo "$TMUX" | cut -d, -f1)" kill-server"#
    let run = try fixture.drive(
      [Self.promptsProbe(SudoTests.userName, state: fixture.state), "expect:TMUX-DONE", "eof"],
      command: Self.tmux(pane))
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.transcript.contains("PROMPTS-NONE"), "\(run.transcript)")
    #expect(!run.transcript.contains("PROMPTS-SEEN"), "\(run.transcript)")
    #expect(!run.transcript.contains("RAN-42"), "\(run.transcript)")
  }

  @Test("sudo in the only pane of a tmux session whose client is on the machine's terminal gets the finger")
  func sudoInOnlyTmuxPane() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive(
      [fixture.touchStep(finger: "right-index"), "expect:RAN-42", "expect:TMUX-DONE", "eof"],
      command: Self.tmux(#"sudo -k /bin/sh -c 'echo RAN-$((6*7))'; sleep 1"#))
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.transcript.contains("Place your finger"), "\(run.transcript)")
    #expect(!run.transcript.contains("Enter Passcode"), "\(run.transcript)")
  }
}
