import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// Issue 21: an app run by an ordinary user (la-app, a SwiftPM package that depends on the products by path)
  /// evaluates and uses its keychain through the setuid helper, in a pseudo-terminal, under every rule of the
  /// root path (docs/HELPER.md, "Apps").
  @Suite("Apps run by ordinary users", .enabled(if: AppDriver.available, "la-app or the helper is not built"))
  struct AppClientTests {
    /// A sandbox with its setuid helper, ready (finger enrolled, passcode 1234, rules satisfied).
    func withApp(_ body: (Sandbox, AppDriver) throws -> Void) throws {
      try withSandbox { s in
        try Setups.ready(s)
        let world = try HelperWorld(s)
        try body(s, AppDriver(world: world))
      }
    }

    @Test("finger: success, the request on the app's terminal names the reason, the domain state is captured")
    func finger() throws {
      try withApp { s, app in
        try s.touch()
        let run = try app.inTerminal(["evaluate", "biometrics", "unlock the vault."])
        #expect(run.lines("evaluate") == ["evaluate success"], "\(run.output)")
        #expect(run.output.contains("Place your finger on the sensor"), "\(run.output)")
        #expect(!run.output.contains(".."), "\(run.output)")
        #expect(run.lines("state").count == 1, "\(run.output)")
      }
    }

    @Test("localauthctl prompts names the app's executable, pid and terminal; a touch by its id reaches it")
    func announcedPrompt() throws {
      try withSandbox { s in
        try Setups.ready(s)
        nonisolated(unsafe) let app = AppDriver(world: try HelperWorld(s, extraConfig: ["timeout=20"]))
        nonisolated(unsafe) var run: AppDriver.Run?
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
          run = try? app.inTerminal(["evaluate", "biometrics", "unlock the vault"])
          done.signal()
        }
        let prompt = try #require(try s.announcedPrompt(), "no prompt was announced")
        #expect(prompt["service"] as? String == "la-app")
        #expect((prompt["tty"] as? String)?.hasPrefix("/dev/pts/") == true, "\(prompt)")
        #expect(prompt["requesterUid"] as? Int == Int(s.uid))
        let pid = try #require(prompt["pid"] as? Int)
        let command = try String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)
        #expect(command == "la-app\n", "the announced pid is the app, not the helper")
        try s.ctl("touch", s.user, "right-index", "--quality", "1", "--prompt", try #require(prompt["id"] as? String))
        #expect(done.wait(timeout: .now() + 30) == .success)
        #expect(run?.lines("evaluate") == ["evaluate success"], "\(run?.output ?? "")")
      }
    }

    @Test("three wrong fingers: authenticationFailed (-1); five across runs: biometryLockout (-8), counted in the state")
    func wrongFingersAndLockout() throws {
      try withApp { s, app in
        for _ in 0..<3 { try s.touch(from: "intruder") }
        let first = try app.inTerminal(["evaluate", "biometrics", "unlock the vault"])
        #expect(first.lines("evaluate") == ["evaluate error -1"], "\(first.output)")
        RecentPrompt.waitOut()  // each run is another program (docs/RULES.md, "One finger request at a time")
        for _ in 0..<2 { try s.touch(from: "intruder") }
        _ = try app.inTerminal(["evaluate", "biometrics", "unlock the vault"])
        RecentPrompt.waitOut()
        let locked = try app.inTerminal(["evaluate", "biometrics", "unlock the vault"])
        #expect(locked.lines("evaluate") == ["evaluate error -8"], "\(locked.output)")
        #expect((try s.record())?.biometricFailures ?? 0 >= 5)
      }
    }

    @Test("fallback to the passcode typed at the app's terminal: success; a wrong one is counted as through PAM")
    func passcodeFallback() throws {
      try withApp { s, app in
        // Touch ID shows the fallback button after the first failed match (docs/RULES.md, rule 3).
        try s.touch(from: "intruder")
        try s.pressFallback()
        let run = try app.inTerminal(["evaluate", "owner", "unlock the vault"], answers: ["asscode": "1234"])
        #expect(run.lines("evaluate") == ["evaluate success"], "\(run.output)")
        #expect(run.output.contains("[typed]"), "\(run.output)")
        try s.touch(from: "intruder")
        try s.pressFallback()
        let wrong = try app.inTerminal(["evaluate", "owner", "unlock the vault"], answers: ["asscode": "9999"])
        #expect(wrong.lines("evaluate").first?.hasPrefix("evaluate error") == true, "\(wrong.output)")
        #expect((try s.record())?.passcodeFailures == 1, "\(wrong.output)")
      }
    }

    @Test("the reuse window never reuses a match made in-app: a second context asks again, with or without a window")
    func reuseWindow() throws {
      // Apple: the window "does not reuse matches made in-app or in other apps" (docs/RULES.md, rule 7).
      try withApp { s, app in
        try s.touch()
        let reused = try app.inTerminal(["twice", "60"])
        #expect(reused.lines("evaluate") == ["evaluate success", "evaluate error -4"], "\(reused.output)")
        #expect(reused.output.components(separatedBy: "Place your finger").count == 3, "two requests: \(reused.output)")
        try s.touch()
        let asked = try app.inTerminal(["twice", "0"])
        #expect(asked.lines("evaluate") == ["evaluate success", "evaluate error -4"], "\(asked.output)")
      }
    }

    @Test("invalidate ends a waiting evaluation with appCancel (-9); the context then answers invalidContext (-10)")
    func invalidate() throws {
      try withApp { _, app in
        let run = try app.inTerminal(["invalidate"])
        #expect(run.lines("evaluate") == ["evaluate error -9", "evaluate error -10"], "\(run.output)")
      }
    }

    @Test("no terminal and no prompter: notInteractive (-1004); the app's own prompter: the passcode through it, no finger")
    func noTerminal() throws {
      try withApp { s, app in
        let bare = try app.withoutTerminal(["evaluate", "biometrics", "unlock the vault"])
        #expect(bare.lines("evaluate") == ["evaluate error -1004"], "\(bare.output)")
        // la-app is not a system program named in gui_services: its dialog is its own word, so no finger is
        // asked (issue 27, finding 4); the passcode goes through the dialog.
        let dialog = try app.withoutTerminal(
          ["dialog", "owner", "unlock the vault"], environment: ["LA_APP_PASSCODE": "1234"])
        #expect(dialog.lines("evaluate") == ["evaluate success"], "\(dialog.output)")
        #expect(!dialog.output.contains("Place your finger"), "\(dialog.output)")
        #expect(dialog.output.contains("dialog passcode"), "\(dialog.output)")
        #expect(try s.record()?.lastBiometricSuccess == nil)
      }
    }

    @Test("issue 27 (4): an app started by setsid with no terminal and its own dialog gets no finger, even with a touch waiting")
    func setsidOwnDialog() throws {
      try withApp { s, app in
        try s.touch()
        let run = try app.world.asUser(
          "/usr/bin/setsid", ["-w", AppDriver.app, "dialog", "biometrics", "unlock the vault"],
          environment: ["LOCALAUTH_HELPER": app.world.helper])
        let output = run.stdout + run.stderr
        #expect(run.stdout.contains("evaluate error -6"), "\(output)")
        #expect(!output.contains("Place your finger"), "\(output)")
        #expect(try s.record()?.lastBiometricSuccess == nil)
      }
    }

    @Test("keychain: add, read, update, delete an item without access control, in the user's own keychain")
    func keychainLifecycle() throws {
      try withApp { s, app in
        #expect(try app.inTerminal(["add", "mail", "alice", "hunter2"]).lines("status") == ["status 0"])
        #expect(try app.inTerminal(["add", "mail", "alice", "again"]).lines("status") == ["status -25299"])
        let read = try app.inTerminal(["read", "mail", "alice"])
        #expect(read.lines("status") == ["status 0"] && read.lines("data") == ["data hunter2"], "\(read.output)")
        #expect(try app.inTerminal(["update", "mail", "alice", "changed"]).lines("status") == ["status 0"])
        #expect(try app.inTerminal(["read", "mail", "alice"]).lines("data") == ["data changed"])
        // Access groups are namespaces: the same service and account in another group is another item.
        #expect(try app.inTerminal(["add", "mail", "alice", "grouped", "none", "com.example.mail"]).lines("status") == ["status 0"])
        #expect(try app.inTerminal(["read", "mail", "alice", "com.example.mail"]).lines("data") == ["data grouped"])
        #expect(try app.inTerminal(["read", "mail", "alice", "org.other"]).lines("status") == ["status -25300"])
        #expect(try app.inTerminal(["delete", "mail", "alice"]).lines("status") == ["status 0"])
        #expect(try app.inTerminal(["read", "mail", "alice"]).lines("status") == ["status -25300"])
        // The item files are root's, in the state folder: the user cannot read them.
        let files = try FileManager.default.subpathsOfDirectory(atPath: s.stateDir)
        #expect(!files.isEmpty)
      }
    }

    @Test("keychain: a biometry item is read after one touch; the context's evaluation serves two reads")
    func contextReuse() throws {
      try withApp { s, app in
        #expect(try app.inTerminal(["add", "vault", "alice", "s3cret", "biometryAny"]).lines("status") == ["status 0"])
        try s.touch()
        let run = try app.inTerminal(["context-read", "vault", "alice"])
        #expect(run.lines("evaluate") == ["evaluate success"], "\(run.output)")
        #expect(run.lines("status") == ["status 0", "status 0"], "\(run.output)")
        #expect(run.lines("data") == ["data s3cret", "data s3cret"], "\(run.output)")
        // Without a touch, a new process's read prompts and, the sensor timing out, gets nothing.
        let again = try app.inTerminal(["read", "vault", "alice"])
        #expect(again.lines("data").isEmpty && again.lines("status") != ["status 0"], "\(again.output)")
      }
    }

    @Test("keychain: three wrong fingers errSecAuthFailed, Cancel errSecUserCanceled, a new enrolment errSecItemNotFound")
    func keychainRefusals() throws {
      try withApp { s, app in
        #expect(try app.inTerminal(["seed"]).lines("status").first == "status 0")
        #expect(try app.inTerminal(["read", "x", "y"]).lines("status") == ["status -25300"])
        for _ in 0..<3 { try s.touch(from: "intruder") }
        let wrong = try runSeedRead(app)
        #expect(wrong.lines("status").last == "status -25293", "\(wrong.output)")
        try s.pressCancel()
        let cancelled = try runSeedRead(app)
        #expect(cancelled.lines("status").last == "status -128", "\(cancelled.output)")
        try s.enroll("left-thumb")
        try s.satisfyPasscodeRules()
        try s.touch()
        let gone = try runSeedRead(app)
        #expect(gone.lines("status").last == "status -25300", "\(gone.output)")
      }
    }

    /// The seed's read alone: la-app's `seed` adds first, which now reports a duplicate.
    func runSeedRead(_ app: AppDriver) throws -> AppDriver.Run {
      try app.inTerminal(["seed"])
    }

    @Test("the seed's snippet as an ordinary user: stored, then read after a touch")
    func seedSnippet() throws {
      try withApp { s, app in
        try s.touch()
        let run = try app.inTerminal(["seed"])
        #expect(run.lines("status") == ["status 0", "status 0"], "\(run.output)")
        #expect(run.lines("data") == ["data test_strong_password"], "\(run.output)")
      }
    }

    @Test("issue 28 as an ordinary user: internet passwords, overwrite, rename, persistent references, allKeys, sync, wipe")
    func itemModel() throws {
      try withApp { _, app in
        let run = try app.inTerminal(["item-model"])
        #expect(
          run.lines("status") == [
            "status -25300", "status 0", "status 0", "status -25299", "status 0", "status 0", "status 0", "status 0",
            "status 0", "status 0",
            "status 0", "status 0", "status -25300", "status -25300", "status -25300",
          ], "\(run.output)")
        #expect(
          run.lines("attr") == ["attr srvr example.com", "attr port 443", "attr icmt work", "attr acct bob", "attr key token"],
          "\(run.output)")
        #expect(run.lines("data") == ["data pw", "data pw2"], "\(run.output)")
      }
    }

    @Test("another user's items do not exist for the caller, and nothing is asked")
    func anotherUser() throws {
      try withApp { s, app in
        #expect(try app.inTerminal(["add", "mail", "alice", "hunter2", "userPresence"]).lines("status") == ["status 0"])
        try withSandbox { other in
          try Setups.ready(other)
          let otherWorld = try HelperWorld(other)
          // The other user's helper reads the first sandbox's state folder.
          let config = "state_dir=\(s.stateDir)\ntimeout=1\n"
          try config.write(toFile: otherWorld.etcSecurity + "/localauth.conf", atomically: true, encoding: .utf8)
          let run = try AppDriver(world: otherWorld).inTerminal(["read", "mail", "alice"])
          #expect(run.lines("status") == ["status -25300"], "\(run.output)")
          #expect(!run.output.contains("Place your finger"), "\(run.output)")
        }
      }
    }
  }
}
