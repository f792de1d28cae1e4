import Foundation
import LocalAuthCore
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// A user runs localauth-helper directly, as an attacker would: crafted and huge messages, closed sockets,
  /// signals in the middle of a hash, a hostile environment, links to the helper. None of it gains a success
  /// or damages the state.
  @Suite("localauth-helper against hostile callers", .enabled(if: Artifacts.helperAvailable, "needs build/localauth-helper (make helper) and mount namespaces"))
  struct HelperHostileTests {
    typealias Result = HelperDriver.Result

    func prepare(_ s: Sandbox, extraConfig: [String] = []) throws -> HelperDriver {
      try s.setPasscode()
      return try HelperDriver(try HelperWorld(s, extraConfig: extraConfig))
    }

    /// The record still decodes, and the right passcode still works through the helper afterwards.
    func expectIntact(_ s: Sandbox, _ driver: HelperDriver, _ comment: Comment? = nil) throws {
      #expect(throws: Never.self, comment) { _ = try s.record() }
      let after = try driver.run(["hello:" + s.user, "answer:1234"])
      #expect(after.result == Result.passcodeSuccess, "\(comment ?? "") \(after.run.stdout)")
    }

    @Test("the driver is sound: a well-formed exchange succeeds with the right passcode and fails with a wrong one")
    func wellFormed() throws {
      try withSandbox { s in
        let driver = try prepare(s)
        let wrong = try driver.run(["hello:" + s.user, "answer:9999"])
        #expect(wrong.result == Result.wrongPasscode, "\(wrong.run.stdout)")
        #expect(wrong.silent, "\(wrong.run.stdout)")
        let right = try driver.run(["hello:" + s.user, "answer:1234"])
        #expect(right.result == Result.passcodeSuccess, "\(right.run.stdout)")
        #expect(right.exit == 0)
      }
    }

    @Test("crafted messages: no success, a protocol fault or a refusal, and the state intact")
    func crafted() throws {
      try withSandbox { s in
        let driver = try prepare(s)
        let hello = "hello:" + s.user
        let cases: [(steps: [String], result: String?, why: String)] = [
          (["hello:root", "answer:1234"], Result.otherUser, "another user"),
          (["raw:01ffff" + String(repeating: "41", count: 4096)], Result.protocolViolation, "a 64 KiB length"),
          (["raw:7f0000"], Result.protocolViolation, "an unknown tag"),
          (["raw:02000431323334"], Result.protocolViolation, "an answer before the hello"),
          (["raw:02000431323334", hello], Result.protocolViolation, "an answer, then a hello"),
          (["shut"], Result.protocolViolation, "a caller that hangs up at once"),
          (["raw:0100", "shut"], Result.protocolViolation, "a truncated message"),
          ([hello, "raw:01", "shut"], Result.conversationFailed, "a hello, then garbage at the prompt"),
          ([hello, "shut"], Result.conversationFailed, "a hello, then hanging up at the prompt"),
          ([hello, hello, hello], Result.conversationFailed, "hellos instead of an answer"),
          ([hello, "raw:1f000201" + "00"], Result.conversationFailed, "a result sent to the helper"),
        ]
        for (steps, expected, why) in cases {
          let outcome = try driver.run(steps)
          #expect(outcome.result == expected, "\(why): \(outcome.run.stdout)")
          #expect(outcome.result != Result.passcodeSuccess, "\(why)")
          #expect(outcome.exit != 0, "\(why): \(outcome.run.stdout)")
          #expect(outcome.silent, "\(why): \(outcome.run.stdout)")
        }
        #expect(try s.record()?.passcodeFailures == 0)
        try expectIntact(s, driver)
      }
    }

    @Test("standard input that is a pipe or a terminal is refused before anything is read")
    func notASocket() throws {
      try withSandbox { s in
        let driver = try prepare(s)
        let piped = try driver.world.asUser(driver.world.helper, [], stdin: "anything")
        #expect(piped.status == 2)
        #expect(piped.stdout.isEmpty && piped.stderr.isEmpty)
        // script(1) gives the helper a pseudo-terminal on standard input.
        let terminal = try driver.world.asUser("/usr/bin/script", ["-qec", driver.world.helper, "/dev/null"])
        #expect(terminal.status == 2, "\(terminal.stdout)")
        #expect(try s.record()?.passcodeFailures == 0)
      }
    }

    @Test("SIGKILL and SIGSTOP in the middle of a hash never corrupt the state nor give a success")
    func signalsMidHash() throws {
      try withSandbox { s in
        // Cost 11 takes long enough (about 0.2–1 s) for the signals to land inside the hash.
        try s.ctl("passcode", "set", s.user, "--conf", try costFile(s), stdin: "1234\n")
        let driver = try HelperDriver(try HelperWorld(s))
        var killedMidway = 0
        for delay in [0, 20, 60, 150, 300] {
          let killed = try driver.run(["hello:" + s.user, "answer:9999", "kill:\(delay)"])
          if killed.exit == -9 && killed.result == nil { killedMidway += 1 }
          #expect(killed.result == nil || killed.result == Result.wrongPasscode, "kill after \(delay) ms: \(killed.run.stdout)")
          #expect(killed.exit == -9 || killed.result == Result.wrongPasscode, "\(killed.run.stdout)")
          #expect(throws: Never.self) { _ = try s.record() }
        }
        // At least the early kills landed before the result: the test exercised what it names.
        #expect(killedMidway >= 2, "only \(killedMidway) of 5 kills landed before the result")
        #expect(try s.record()?.passcodeFailures ?? 0 <= 5)
        // Each kill that landed after the count left a wrong entry counted (counted before the hash, by design):
        // five put the 1-minute delay in force. Cleared, so that the stop below is what decides.
        try s.ctl("reset", s.user)
        let stopped = try driver.run(["hello:" + s.user, "answer:1234", "stopcont:30"])
        #expect(stopped.result == Result.passcodeSuccess, "\(stopped.run.stdout)")
        try expectIntact(s, driver)
      }
    }

    @Test("a file size or open files limit it cannot raise: refused before anything is read, one syslog line naming it")
    func limitsItCannotRaise() throws {
      try withSandbox { s in
        let driver = try prepare(s)
        let log = try SyslogSocket(folder: s.root + "/dev")
        // Without CAP_SYS_RESOURCE in the bounding set, even a setuid-root program cannot raise a hard limit.
        let noRaise = ["--bounding-set", "-sys_resource"]
        let refused = "so a state write could fail; refused."
        let limits: [(option: String, sentence: String)] = [
          // 256 bytes: the record's write would die of SIGXFSZ half way.
          ("--fsize=256:256", "with a file size limit (RLIMIT_FSIZE) of 256 bytes that it cannot raise to at least 1048576"),
          ("--nofile=16:16", "with an open files limit (RLIMIT_NOFILE) of 16 that it cannot raise to at least 64"),
        ]
        for (option, sentence) in limits {
          let outcome = try driver.run(
            ["hello:" + s.user, "answer:9999"], wrapper: ["/usr/bin/prlimit", option, "--"], setpriv: noRaise, devLog: log)
          #expect(outcome.exit == 2, "\(option): \(outcome.run.stdout) \(outcome.run.stderr)")
          #expect(outcome.result == nil, "\(option): \(outcome.run.stdout)")
          #expect(outcome.silent, "\(option): \(outcome.run.stdout)")
          let lines = log.messages()
          let expected = "localauth-helper[", line = "localauth-helper was run by uid \(s.uid) \(sentence), \(refused)"
          #expect(lines.filter { $0.contains(expected) && $0.hasSuffix(line) }.count == 1, "\(option): \(lines)")
          #expect(lines.count == 1, "one line: \(lines)")
        }
        #expect(try s.record()?.passcodeFailures == 0, "nothing was read or counted")

        // A soft limit it can raise to the hard one, or a hard limit above what it needs, is fine. The log is read
        // after each run: a datagram socket's queue is short (net.unix.max_dgram_qlen, 10), and syslog(3) waits
        // for room (each run logs that the hello's service is not the caller's executable).
        var lines: [String] = []
        for option in ["--fsize=256:unlimited", "--fsize=2097152:2097152", "--nofile=16:256"] {
          let outcome = try driver.run(
            ["hello:" + s.user, "answer:1234"], wrapper: ["/usr/bin/prlimit", option, "--"], setpriv: noRaise, devLog: log)
          #expect(outcome.result == Result.passcodeSuccess, "\(option): \(outcome.run.stdout) \(outcome.run.stderr)")
          lines += log.messages()
        }
        #expect(!lines.contains { $0.contains(refused) }, "\(lines)")
        try expectIntact(s, driver)
      }
    }

    func costFile(_ s: Sandbox) throws -> String {
      let path = s.root + "/cost.conf"
      try "hash_cost=11\n".write(toFile: path, atomically: true, encoding: .utf8)
      chmod(path, 0o644)
      return path
    }

    @Test("a hostile environment (LD_PRELOAD, SWIFT_*, locale, DBUS_*) changes nothing and prints nothing")
    func hostileEnvironment() throws {
      try withSandbox { s in
        let driver = try prepare(s)
        // A library that would announce itself if the loader ever ran it in the helper.
        let source = s.root + "/evil.c"
        let library = s.root + "/evil.so"
        try #"""
          #include <stdio.h>
          #include <unistd.h>
          __attribute__((constructor)) static void evil(void) { if (geteuid() == 0) { fputs("EVIL-AS-ROOT\n", stderr); } }
          """#.write(toFile: source, atomically: true, encoding: .utf8)
        try Run.checked("/usr/bin/cc", ["-shared", "-fPIC", "-o", library, source])
        chmod(library, 0o755)
        let environment = [
          "LD_PRELOAD": library, "LD_LIBRARY_PATH": s.root, "SWIFT_DEBUG_HELP": "1", "SWIFT_BACKTRACE": "enable=yes",
          "SWIFT_UNKNOWN": "1", "LANG": "tr_TR.UTF-8", "LC_ALL": "tr_TR.UTF-8", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=" + s.root + "/bus",
          "SSH_CONNECTION": "", "TMPDIR": s.root, "MALLOC_CHECK_": "3",
        ]
        let outcome = try driver.run(["hello:" + s.user, "answer:1234"], environment: environment)
        #expect(outcome.result == Result.passcodeSuccess, "\(outcome.run.stdout)")
        #expect(outcome.silent, "\(outcome.run.stdout)")
        #expect(!outcome.run.stderr.contains("EVIL-AS-ROOT"), "\(outcome.run.stderr)")
        let other = try driver.run(["hello:root", "answer:1234"], environment: environment)
        #expect(other.result == Result.otherUser, "\(other.run.stdout)")
      }
    }

    @Test("a symbolic or hard link to the helper, with a configuration beside it, still reads only the system's")
    func links() throws {
      try withSandbox { s in
        let driver = try prepare(s)
        // A folder of the user's own, with a configuration that names a state folder the user controls.
        let own = s.root + "/user-owned"
        try FileManager.default.createDirectory(atPath: own + "/state", withIntermediateDirectories: true)
        try "state_dir=\(own)/state\n".write(toFile: own + "/localauth.conf", atomically: true, encoding: .utf8)
        try Run.checked("/bin/chown", ["-R", "\(s.uid)", own])
        let symbolic = own + "/sshd"
        try FileManager.default.createSymbolicLink(atPath: symbolic, withDestinationPath: driver.world.helper)
        let hard = own + "/localauth-helper"
        #expect(link(driver.world.helper, hard) == 0)
        for path in [symbolic, hard] {
          let other = try driver.run(["hello:root", "answer:1234"], helper: path)
          #expect(other.result == Result.otherUser, "\(path): \(other.run.stdout)")
          let right = try driver.run(["hello:" + s.user, "answer:1234"], helper: path)
          #expect(right.result == Result.passcodeSuccess, "\(path): \(right.run.stdout)")
        }
        // Nothing was written where the user's configuration pointed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: own + "/state").isEmpty)
        unlink(hard)
      }
    }

    /// The texts of the messages a driver printed in a terminal's transcript ("msg TAG HEX").
    static func texts(_ transcript: String) -> [String] {
      transcript.split(separator: "\n").compactMap { line -> String? in
        let fields = line.split(separator: " ")
        guard fields.count == 3, fields[0] == "msg" else { return nil }
        let hex = Array(fields[2].utf8)
        var bytes: [UInt8] = []
        var index = 0
        while index + 1 < hex.count {
          guard let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16) else { return nil }
          bytes.append(byte)
          index += 2
        }
        return String(decoding: bytes, as: UTF8.self)
      }
    }

    @Test("issue 27 (4): a hello naming swaylock from a program that is not swaylock is not visible: no finger is asked")
    func forgedScreenLocker() throws {
      try withSandbox { s in
        try s.setPasscode()
        try s.enroll()
        try s.satisfyPasscodeRules()
        let driver = try HelperDriver(try HelperWorld(s, extraConfig: ["gui_services=swaylock," + s.service]))
        let run = try driver.run(["claim:\(s.user),swaylock,", "answer:1234"])
        #expect(run.result == Result.passcodeSuccess, "\(run.run.stdout)")
        let texts = Self.texts(run.run.stdout)
        #expect(!texts.contains { $0.contains("Place your finger") }, "\(texts)")
        #expect(try s.record()?.lastBiometricSuccess == nil)
      }
    }

    @Test("issue 27 (5): a program run as 'sudo' (exec -a, or a copy named sudo) is named by its executable and terminal, never 'as root (sudo)'")
    func forgedSudo() throws {
      try withSandbox { s in
        try s.setPasscode()
        try s.enroll()
        try s.satisfyPasscodeRules()
        nonisolated(unsafe) let driver = try HelperDriver(try HelperWorld(s, extraConfig: ["timeout=20"]))
        let folder = s.root + "/forged"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Run.checked("/bin/cp", ["/usr/bin/python3", folder + "/sudo"])
        try Run.checked("/bin/chown", ["-R", "\(s.uid)", folder])
        chmod(folder, 0o755)
        let python = URL(fileURLWithPath: "/usr/bin/python3").resolvingSymlinksInPath().lastPathComponent
        let cases: [(String, String, String)] = [
          ("exec -a sudo", "tty; exec -a sudo /usr/bin/python3 \"$@\"", python),
          ("a copy named sudo", "tty; exec \(folder)/sudo \"$@\"", folder + "/sudo"),
        ]
        let claim = "claim:\(s.user),sudo,/dev/pts/4"
        for (label, launcher, expected) in cases {
          RecentPrompt.waitOut()  // the previous case's prompt ended a moment ago
          nonisolated(unsafe) var run: ProcessRun?
          let done = DispatchSemaphore(value: 0)
          Thread.detachNewThread {
            run = try? driver.world.inRootTerminal(
              "/bin/bash", ["-c", launcher, "bash", driver.scriptPath, driver.world.helper, claim])
            done.signal()
          }
          let prompt = try #require(try s.announcedPrompt(), "\(label): no prompt was announced")
          #expect(prompt["service"] as? String == expected, "\(label): \(prompt)")
          #expect(prompt["service"] as? String != "sudo", "\(label)")
          let tty = prompt["tty"] as? String ?? ""
          #expect(tty.hasPrefix("/dev/pts/") && tty != "/dev/pts/4", "\(label): \(prompt)")
          try s.ctl("touch", s.user, "right-index", "--quality", "1", "--prompt", try #require(prompt["id"] as? String))
          #expect(done.wait(timeout: .now() + 60) == .success)
          let transcript = run?.stdout ?? ""
          // The terminal the kernel gave the caller is the one announced, not the hello's.
          #expect(transcript.split(separator: "\n").first.map(String.init) == tty, "\(label): \(transcript)")
          let texts = Self.texts(transcript)
          #expect(!texts.contains { $0.contains("as root") || $0.contains("(sudo)") }, "\(label): \(texts)")
          #expect(texts.contains("Place your finger on the sensor to authenticate for \(expected)."), "\(label): \(texts)")
        }
      }
    }
  }
}
