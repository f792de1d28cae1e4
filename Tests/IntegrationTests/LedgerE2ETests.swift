import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 27, findings 8 and 12, end to end: what the session ledger (Sources/LocalAuthCore/State/SessionLedger.swift,
/// `<state folder>/sessions` in these tests) holds, or its absence, decides whether a user's login session may be
/// offered the finger (docs/RULES.md, rule 2, "The login session").
extension RemoteSessionTests {
  /// How the ledger shows `session`: its byte ("L", "R"), or nil when the file has none for it (or no file).
  static func ledgerEntry(state: String, session: UInt32) -> UInt8? {
    guard let data = FileManager.default.contents(atPath: state + "/sessions") else { return nil }
    let offset = 64 + Int(session)
    guard offset < data.count, data[offset] != 0 else { return nil }
    return data[offset]
  }

  @Test("issue 27 (8): no ledger anywhere, su in a tmux server an SSH login left behind asks the passcode, never the finger")
  func noLedgerLeftoverGetsPasscode() throws {
    let devFolder = try TemporaryFolder.make("/tmp/localauth-e2e-devlog.XXXXXX")
    defer { TemporaryFolder.remove(devFolder) }
    let devLog = try SyslogSocket(folder: devFolder + "/dev")
    let fixture = try Fixture(ledger: false, devLog: devLog)
    defer { fixture.tearDown() }
    let ledger = fixture.state + "/sessions"
    #expect(access(ledger, F_OK) != 0, "a ledger exists before the test")
    // The SSH user leaves a tmux server behind; its su starts 2 s later, once the connection is gone.
    let server = "localauth-noledger"
    let su = "sleep 2; /usr/bin/su \(Self.targetName) -c true; sleep 30"
    let run = try fixture.ssh("\(Self.clearSSH) tmux -L \(server) new-session -d \"\(su)\"; sleep 0.5", ["eof"])
    #expect(run.exitStatus == 0, "\(run.transcript)")
    guard let user = getpwnam(Self.userName) else { throw LoginSuTests.SetupError.command("getpwnam", 0, "") }
    let asUser = ["/usr/bin/setpriv", "--reuid", "\(user.pointee.pw_uid)", "--regid", "\(user.pointee.pw_gid)", "--clear-groups"]
    var pane = ""
    var prompts: [String] = []
    let deadline = Date().addingTimeInterval(15)
    // A finger request shows "finger" on su's terminal ("Place your finger …"; "U asks for T's finger …").
    while Date() < deadline && !pane.contains("Enter Passcode:") && !pane.contains("finger") {
      let listing = try LoginSuTests.Command.run(LoginSuEnvironment.ctl, ["prompts", "--state-dir", fixture.state]).output
      if listing.contains(Self.targetName) || listing.contains(Self.userName) { prompts.append(listing) }
      pane = try LoginSuTests.Command.run(asUser[0], Array(asUser.dropFirst()) + ["/usr/bin/tmux", "-L", server, "capture-pane", "-p"]).output
      usleep(100_000)
    }
    _ = try? LoginSuTests.Command.run(asUser[0], Array(asUser.dropFirst()) + ["/usr/bin/tmux", "-L", server, "kill-server"])
    #expect(pane.contains("Enter Passcode:"), "su's pane: \(pane)")
    #expect(!pane.contains("finger"), "su's pane: \(pane)")
    #expect(prompts.isEmpty, "a finger prompt was listed: \(prompts)")
    #expect(access(ledger, F_OK) != 0, "a ledger was made although no stack has the session line")
    // The module says once why: the missing session line.
    let why = "No finger is asked of user \(Self.targetName): no ledger: pam_localauth's session line"
    let logged = devLog.messages().filter { $0.contains(why) }
    #expect(logged.count == 1, "\(devLog.messages())")
  }
}

/// Issue 27, finding 12: su is setuid (its real uid is the caller's) and opens no login session. One whose parent
/// has exited before pam_open_session, so that its audit session differs from its new parent's, must not record
/// the caller's session (a cron job's, unrecorded in the ledger) as opened at the machine.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: LoginSuEnvironment.capable, "Needs root, a setuid /usr/bin/su and python3."),
  .enabled(if: LoginSuEnvironment.namespaces, "Needs a private mount namespace (unshare --mount)."))
struct LedgerE2ETests {
  @Test("issue 27 (12): an su whose parent has exited before its session opens does not record the caller's session as local")
  func reparentedSuRecordsNothing() throws {
    let fixture = try LoginSuTests.Fixture(program: .su, passcodeFirst: false)
    defer { fixture.tearDown() }
    guard let caller = getpwnam(LoginSuTests.callerName) else { throw LoginSuTests.SetupError.command("getpwnam", 0, "") }
    let (uid, gid) = (caller.pointee.pw_uid, caller.pointee.pw_gid)
    // A ledger for this boot that holds nothing yet: the caller's session is then unrecorded (passcode only).
    let bootID = (try String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))
      .trimmingCharacters(in: .whitespacesAndNewlines)
    var header = Array("localauth-sessions 1 \(bootID)".utf8.prefix(63))
    header += Array(repeating: UInt8(ascii: " "), count: 63 - header.count) + [UInt8(ascii: "\n")]
    let ledger = fixture.state + "/sessions"
    guard FileManager.default.createFile(atPath: ledger, contents: Data(header), attributes: [.posixPermissions: 0o600]) else {
      throw LoginSuTests.SetupError.command("write \(ledger)", errno, "")
    }
    // As cron starts a job: root gives the process a login session of the caller's (pam_loginuid), then drops to
    // the caller. The job's shell starts su in the background and exits at once: su is reparented while it asks.
    let job = fixture.folder + "/job.sh"
    let body = """
      echo "SESSION=$(cat /proc/self/sessionid)"
      /bin/sh -c '/usr/bin/su \(LoginSuTests.userName) -c "echo SU-\\$((6*7)); sleep 1" </dev/tty &'
      sleep 12

      """
    guard FileManager.default.createFile(atPath: job, contents: Data(body.utf8), attributes: [.posixPermissions: 0o755]) else {
      throw LoginSuTests.SetupError.command("write \(job)", errno, "")
    }
    chmod(fixture.folder, 0o755)
    let root = "echo 4294967295 > /proc/self/loginuid && echo \(uid) > /proc/self/loginuid && "
      + "exec /usr/bin/setpriv --reuid \(uid) --regid \(gid) --clear-groups /bin/sh \"$0\""
    var arguments = ["--mount", "--propagation", "private", LoginSuEnvironment.python, fixture.driver, "--timeout", "25"]
    arguments += ["--bind", fixture.stack + ":" + LoginSuTests.Program.su.systemFile]
    arguments += ["expect:SESSION=[0-9]+", "expect:Enter Passcode: ", "send:" + LoginSuTests.passcode, "expect:SU-42", "sleep:2", "kill"]
    arguments += ["--"] + LoginSuTests.localSession + ["/bin/sh", "-c", root, job]
    let run = LoginSuTests.DriveResult(try LoginSuTests.Command.run("/usr/bin/unshare", arguments).output)
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(!run.transcript.contains("Place your finger"), "\(run.transcript)")
    let session = run.transcript.split(whereSeparator: \.isNewline).lazy.compactMap { line -> UInt32? in
      guard let range = line.range(of: "SESSION=") else { return nil }
      return UInt32(line[range.upperBound...].prefix { $0.isNumber })
    }.first
    let recorded = try #require(session, "no session printed: \(run.transcript)")
    #expect(RemoteSessionTests.ledgerEntry(state: fixture.state, session: recorded) == nil,
      "su recorded the caller's session \(recorded) in the ledger")
    let data = FileManager.default.contents(atPath: ledger) ?? Data()
    #expect(data.dropFirst(64).allSatisfy { $0 == 0 }, "the ledger gained an entry: \(data.count) bytes")
  }
}
