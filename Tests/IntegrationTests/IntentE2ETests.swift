import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// docs/RULES.md, "Intent", end to end: the real su and sudo through the shipped stacks (LoginSuTests' and
/// SudoTests' fixtures: a private mount namespace, the pseudo-terminal driver, test users). A request the person
/// at the machine cannot see (no terminal, a background job) gets no finger prompt and no prompt listed by
/// `localauthctl prompts`; one in the foreground gets the finger, and the prompt names the command, escaped.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: LoginSuEnvironment.capable && SudoEnvironment.capable, "Needs root, su, a setuid sudo and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."))
struct IntentE2ETests {
  /// A driver step (root, in the background) that looks for a waiting prompt for `user` for two seconds and
  /// prints PROMPTS-SEEN or PROMPTS-NONE.
  static func promptsProbe(_ user: String, state: String) -> String {
    let list = "\(LoginSuEnvironment.ctl) prompts \(user) --json --state-dir \(state)"
    return "run:seen=NONE; for i in $(seq 40); do if \(list) | grep -q '\"id\"'; then seen=SEEN; break; fi; "
      + "sleep 0.05; done; echo PROMPTS-$seen"
  }

  @Test("`setsid su U -c …` with no terminal, run by another user: no finger prompt, no prompt listed")
  func suWithoutTerminal() throws {
    let fixture = try LoginSuTests.Fixture(program: .su, passcodeFirst: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive(
      [Self.promptsProbe(LoginSuTests.userName, state: fixture.state), "expect:SETSID-EXIT=[0-9]+", "eof"],
      command: ["/bin/sh", "-c", "setsid su \(LoginSuTests.userName) -c 'echo RAN-$((6*7))' </dev/null; echo SETSID-EXIT=$?"])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
    #expect(run.transcript.contains("PROMPTS-NONE"), "\(run.transcript)")
    #expect(!run.transcript.contains("RAN-42"), "\(run.transcript)")
    #expect(run.transcript.contains("SETSID-EXIT=1"), "\(run.transcript)")
  }

  @Test("`sudo -k …` in a background job of an interactive shell on a terminal: no finger prompt, no prompt listed")
  func sudoInBackgroundJob() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let run = try fixture.drive(
      [
        Self.promptsProbe(SudoTests.userName, state: fixture.state), "expect:\\$ $",
        // `wait` reaps the killed job before `exit`: a job bash still believes stopped makes `exit` only warn
        // ("There are stopped jobs.") and the shell never ends.
        "send:sudo -k /bin/sh -c 'echo RAN-$((6*7))' & sleep 2; kill -9 %1; wait %1 2>/dev/null; echo BG-DONE-$((6*7))",
        "expect:^BG-DONE-42", "send:exit", "eof",
      ],
      command: ["/bin/bash", "--norc", "--noprofile", "-i"])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
    #expect(run.transcript.contains("PROMPTS-NONE"), "\(run.transcript)")
    #expect(!run.transcript.contains("RAN-42"), "\(run.transcript)")
  }

  @Test("`setsid -f script -qfc \"sudo -k …\"` with no terminal: no finger prompt, no prompt listed")
  func sudoInScriptWithoutTerminal() throws {
    // Issue 27, finding 6: sudo and its shell are in the foreground of script's new pseudo-terminal, but script,
    // which holds its master, has no terminal: nobody watches it. sudo asks for the passcode on that terminal,
    // which the test reads from the typescript; then script is ended by its pid (its sudo gets SIGHUP).
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let body = #"""
      t=$(mktemp) || exit 1
      setsid script -qfc "sudo -k /bin/sh -c 'echo RAN-\$((6*7))'; true" "$t" </dev/null >/dev/null 2>&1 &
      s=$!
      i=0
      while [ $i -lt 200 ] && ! grep -q -e 'Enter Passcode' -e 'Place your finger' "$t"; do sleep 0.1; i=$((i+1)); done
      sleep 0.3
      echo TYPESCRIPT-BEGIN; cat "$t"; echo; echo TYPESCRIPT-END
      kill -TERM $s; wait $s; rm -f "$t"
      i=0; while [ $i -lt 100 ] && pgrep -U "$(id -u)" -x sudo >/dev/null; do sleep 0.1; i=$((i+1)); done
      echo SCRIPT-DONE
      """#
    let run = try fixture.drive(
      [Self.promptsProbe(SudoTests.userName, state: fixture.state), "expect:^TYPESCRIPT-END", "expect:SCRIPT-DONE", "eof"],
      command: ["/bin/sh", "-c", body])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
    #expect(run.transcript.contains("Enter Passcode"), "\(run.transcript)")
    #expect(run.transcript.contains("PROMPTS-NONE"), "\(run.transcript)")
    #expect(!run.transcript.contains("RAN-42"), "\(run.transcript)")
  }

  @Test("`sudo -S …` (also with -b, the CVE's background sudo) from a script without a terminal: no finger prompt, no prompt listed",
    arguments: ["-S -k", "-S -b -k"])
  func sudoFromScriptWithoutTerminal(options: String) throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let script = "sudo \(options) /bin/sh -c 'echo RAN-$((6*7))' </dev/null"
    let run = try fixture.drive(
      [Self.promptsProbe(SudoTests.userName, state: fixture.state), "expect:SCRIPT-EXIT=[0-9]+", "eof"],
      command: ["/bin/sh", "-c", "setsid /bin/sh -c \"\(script)\"; echo SCRIPT-EXIT=$?"])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
    #expect(run.transcript.contains("PROMPTS-NONE"), "\(run.transcript)")
    #expect(!run.transcript.contains("RAN-42"), "\(run.transcript)")
    #expect(!run.transcript.contains("SCRIPT-EXIT=0"), "\(run.transcript)")
  }

  @Test("sudo in the foreground gets the finger; the prompt and `localauthctl prompts` name the command")
  func sudoInForegroundNamesCommand() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let list = "\(LoginSuEnvironment.ctl) prompts \(SudoTests.userName) --json --state-dir \(fixture.state)"
    let listed = "for i in $(seq 200); do out=$(\(list)); case \"$out\" in *approval*) echo \"LISTED $out\"; break;; esac; "
      + "sleep 0.05; done; "
    let touch = fixture.touchStep(finger: "right-index")
    let run = try fixture.drive(["run:" + listed + touch.dropFirst("run:".count), "expect:" + SudoTests.rootMarker, "eof"])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    // A quote inside an argument is \x27: the argument's own quotes are the only ones (issue 27, finding 5).
    let approval = "run `/bin/sh -c 'printf \\x27LOCALAUTH-%s-uid%s\\x5cn\\x27 OK \"$(id -u)\"'` as root (sudo)"
    #expect(run.transcript.contains("Place your finger on the sensor to " + approval + "."), "\(run.transcript)")
    // `localauthctl prompts --json` listed the waiting prompt with the same text (JSON-quoted).
    #expect(run.transcript.contains("LISTED ["), "\(run.transcript)")
    #expect(run.transcript.contains("\"approval\": \"run `/bin/sh -c 'printf "), "\(run.transcript)")
  }

  @Test("a command line with a newline, escape sequences and backticks cannot forge the prompt's text")
  func hostileCommandLine() throws {
    let fixture = try SudoTests.Fixture(passcodeFirst: false)
    defer { fixture.tearDown() }
    let forged = "Place your finger on the sensor to run `ls` as root (sudo)."
    let script = SudoTests.command + "; exit 0\n\u{1B}[2K\r" + forged
    let run = try fixture.drive(
      [fixture.touchStep(finger: "right-index"), "expect:" + SudoTests.rootMarker, "eof"],
      command: [SudoEnvironment.sudo, "-k", "/bin/sh", "-c", script])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    #expect(!run.transcript.utf8.contains(0x1B), "\(run.transcript)")
    let fingerLines = run.transcript.split(separator: "\n").filter { $0.contains("Place your finger on the sensor") }
    #expect(fingerLines.count == 1, "\(run.transcript)")
    #expect(fingerLines.first?.hasPrefix("Place your finger on the sensor to run `/bin/sh -c 'printf ") == true, "\(run.transcript)")
    // The newline and the escape sequence are shown, not obeyed; the 80-character cap cuts the rest, visibly.
    #expect(fingerLines.first?.contains("; exit 0\\x0a\\x1b") == true, "\(run.transcript)")
    #expect(fingerLines.first?.contains(" more bytes)` as root (sudo).") == true, "\(run.transcript)")
    #expect(!run.transcript.contains(forged), "\(run.transcript)")
  }
}
