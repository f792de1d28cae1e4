import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// docs/RULES.md, "Touch delivery": a finger reaches only the prompt it was presented to, a prompt says who asks,
/// and a reuse window serves only the requester and terminal it was opened for. Through the real su(1), run by an
/// unprivileged user on a pseudo-terminal, and through pamtester.
@Suite(
  .serialized,
  .builtModuleAndTool,
  .enabled(if: LoginSuEnvironment.capable, "Needs root, /usr/bin/login, /usr/bin/su and python3."))
struct TouchDeliveryTests {
  static let target = LoginSuTests.userName
  static let caller = LoginSuTests.callerName

  @Test("su run by another user: the prompt names who asks, announces itself, and takes only a touch made for it")
  func suPromptNamesTheRequester() throws {
    let fixture = try LoginSuTests.Fixture(program: .su, passcodeFirst: false)
    defer { fixture.tearDown() }
    // No prompt waits yet: the touch is refused, not kept for the next prompt.
    let early = try ctl(fixture, ["touch", Self.target, "right-index", "--quality", "1"])
    #expect(early.status == 1)
    #expect(early.output == "Error: No prompt is waiting for \(Self.target).\n")

    let listing = fixture.folder + "/prompts.json"
    let list = [LoginSuEnvironment.ctl, "prompts", Self.target, "--json", "--state-dir", fixture.state].joined(separator: " ")
    let run = try fixture.drive([
      "expect:\(Self.caller) asks for \(Self.target)'s finger to run su\\.", "expect:" + LoginSuTests.suFingerPrompt,
      "run:\(list) > \(listing); " + String(fixture.touchStep(Self.target, finger: "right-index").dropFirst(4)),
      "expect:" + LoginSuTests.marker, "eof",
    ])
    #expect(run.stepsCompleted, "\(run.transcript)")
    #expect(run.exitStatus == 0, "\(run.transcript)")
    let callerUID = try #require(getpwnam(Self.caller)).pointee.pw_uid
    let prompts = try #require(
      try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: listing))) as? [[String: Any]])
    #expect(prompts.count == 1)
    #expect(prompts.first?["user"] as? String == Self.target)
    #expect(prompts.first?["service"] as? String == "su")
    #expect(prompts.first?["requesterUid"] as? Int == Int(callerUID))
    #expect(prompts.first?["requester"] as? String == Self.caller)
    #expect((prompts.first?["tty"] as? String)?.hasPrefix("/dev/pts/") == true)
    // The prompt is gone once su ended.
    #expect(try ctl(fixture, ["prompts", Self.target]).output == "No prompt is waiting for \(Self.target).\n")
  }

  @Test("two prompts for one user: another user's su and the user's own request both fall back, name each other, and a touch reaches neither")
  func twoPromptsForOneUserFallBack() throws {
    // docs/RULES.md, "One finger request at a time" (issue 37): before it, a touch without --prompt went to the
    // prompt root asked for while B's su waited; now neither prompt waits for the finger.
    let fixture = try LoginSuTests.Fixture(program: .su, passcodeFirst: false)
    defer { fixture.tearDown() }
    // B's `su A` waits for A's finger on one terminal...
    let su = Background {
      try fixture.drive(["expect:Place your finger", "expect:Another program is asking for your finger: localauth-own, pid ", "kill", "eof"])
    }
    let suPrompt = try #require(try waitForPrompts(fixture, count: 1).first)
    // ...and A's own authentication (root's PAMHarness through the same module and state) starts on another.
    let service = fixture.folder + "/pam.d"
    try FileManager.default.createDirectory(atPath: service, withIntermediateDirectories: false)
    try "auth required \(LoginSuEnvironment.module) state_dir=\(fixture.state) conf=\(fixture.folder)/localauth.conf timeout=5 gui_services=localauth-own\n"
      .write(toFile: service + "/localauth-own", atomically: true, encoding: .utf8)
    let ownRun = try LoginSuTests.Command.run(
      try #require(ProcessInfo.processInfo.environment["LOCALAUTH_HARNESS"]),
      ["--confdir", service, "--service", "localauth-own", "--user", Self.target])
    #expect(!ownRun.output.contains("result: PAM_SUCCESS"), "\(ownRun.output)")
    #expect(!ownRun.output.contains("Place your finger"), "\(ownRun.output)")
    #expect(ownRun.output.contains("Another program is asking for your finger: su, pid \(suPrompt["pid"] as? Int ?? -1), "), "\(ownRun.output)")
    usleep(500_000)
    let touched = try ctl(fixture, ["touch", Self.target, "right-index", "--quality", "1"])
    #expect(touched.status == 1, "\(touched.output)")
    #expect(touched.output == "Error: No prompt is waiting for \(Self.target).\n", "\(touched.output)")
    let suRun = try su.result()
    #expect(suRun.stepsCompleted, "\(suRun.transcript)")
    #expect(!suRun.transcript.contains(LoginSuTests.marker), "\(suRun.transcript)")
  }

  @Test("touch --wait without --prompt ignores another user's su of the user, and reaches the user's own prompt")
  func touchWaitGoesOnlyToTheOwnersPrompt() throws {
    let fixture = try LoginSuTests.Fixture(program: .su, passcodeFirst: false)
    defer { fixture.tearDown() }
    // B's `su A` waits for A's finger; nothing reaches it, so its sensor wait ends and pam_unix asks.
    let su = Background { try fixture.drive(["expect:Place your finger", "expect:Password: ", "send:not-the-password", "eof"]) }
    try waitForPrompts(fixture, count: 1)
    let ignored = try ctl(fixture, ["touch", Self.target, "right-index", "--quality", "1", "--wait", "1"])
    #expect(ignored.status == 1, "\(ignored.output)")
    #expect(
      ignored.output.hasPrefix(
        "Error: No prompt that \(Self.target) or root asked for is waiting for \(Self.target); a prompt another user "
          + "asked for takes a touch only with --prompt ID:\n"), "\(ignored.output)")
    #expect(ignored.output.contains("\(Self.caller) (uid "), "\(ignored.output)")
    let suRun = try su.result()
    #expect(suRun.stepsCompleted, "\(suRun.transcript)")
    #expect(suRun.exitStatus != 0, "\(suRun.transcript)")
    #expect(!suRun.transcript.contains(LoginSuTests.marker), "\(suRun.transcript)")
    // A prompt starting within two seconds of the su's end would fall back (docs/RULES.md, "One finger request
    // at a time").
    RecentPrompt.waitOut()

    // A request on A's behalf that root asked for (as a display manager does) is reached by the same touch, started
    // before the prompt appears. (A's own request through a program of A's that is not a system program would not be
    // visible without a terminal: `gui_services=` counts for a caller that is not root only from a system program.)
    let service = fixture.folder + "/pam.d"
    try FileManager.default.createDirectory(atPath: service, withIntermediateDirectories: false)
    try "auth required \(LoginSuEnvironment.module) state_dir=\(fixture.state) conf=\(fixture.folder)/localauth.conf timeout=5 gui_services=localauth-own\n"
      .write(toFile: service + "/localauth-own", atomically: true, encoding: .utf8)
    let touch = Background { try self.ctl(fixture, ["touch", Self.target, "right-index", "--quality", "1", "--wait", "10"]) }
    let own = try LoginSuTests.Command.run(
      try #require(ProcessInfo.processInfo.environment["LOCALAUTH_HARNESS"]),
      ["--confdir", service, "--service", "localauth-own", "--user", Self.target])
    #expect(own.output.contains("result: PAM_SUCCESS"), "\(own.output)")
    let delivered = try touch.result()
    #expect(delivered.status == 0, "\(delivered.output)")
    #expect(delivered.output.contains("(root asks for \(Self.target) through localauth-own)"), "\(delivered.output)")
  }

  /// Runs localauthctl on the fixture's state folder.
  func ctl(_ fixture: LoginSuTests.Fixture, _ arguments: [String]) throws -> (status: Int32, output: String) {
    try LoginSuTests.Command.run(LoginSuEnvironment.ctl, arguments + ["--state-dir", fixture.state])
  }

  /// Waits (at most 15 s) until `count` prompts wait for the target; returns them.
  @discardableResult
  func waitForPrompts(_ fixture: LoginSuTests.Fixture, count: Int) throws -> [[String: Any]] {
    let end = Date().addingTimeInterval(15)
    while true {
      let listed = try ctl(fixture, ["prompts", Self.target, "--json"])
      let prompts = (try? JSONSerialization.jsonObject(with: Data(listed.output.utf8))) as? [[String: Any]] ?? []
      if prompts.count >= count { return prompts }
      guard Date() < end else { throw LoginSuTests.SetupError.command("waiting for \(count) prompts", 0, listed.output) }
      usleep(20_000)
    }
  }
}

extension LoginSuTests.Fixture: @unchecked Sendable {}

/// Runs a throwing body on another thread; `result()` waits for it (at most 60 s).
final class Background<T>: @unchecked Sendable {
  private var outcome: Result<T, any Error>?
  private let done = DispatchSemaphore(value: 0)

  init(_ body: @escaping @Sendable () throws -> T) {
    Thread.detachNewThread { [self] in
      outcome = Result { try body() }
      done.signal()
    }
  }

  func result() throws -> T {
    guard done.wait(timeout: .now() + 60) == .success, let outcome else {
      throw LoginSuTests.SetupError.command("a background run did not end", 0, "")
    }
    return try outcome.get()
  }
}

extension RealPAM {
  /// The reuse window is scoped like sudo's tty tickets (docs/RULES.md, rule 7).
  @Suite("Reuse window scope", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
  struct ReuseScopeTests {
    @Test("pamtester: a match on one terminal is not reused from another; on the same terminal it is")
    func reuseIsPerTerminal() throws {
      try withSandbox { s in
        try Setups.ready(s)
        try s.writeService([s.moduleLine(["reuse_duration=300"])])
        try s.touch()
        let first = try s.pamtester(user: nil, options: ["-I", "tty=/dev/pts/91"])
        #expect(first.status == 0, "\(first.run.stderr)")
        #expect(first.syslog.contains { $0.hasPrefix("Biometric match succeeded for user \(s.user)") })
        // Another terminal: the finger is asked for again (none comes: the 1 s sensor wait ends the prompt), once
        // the two seconds after the first prompt's end have passed (docs/RULES.md, "One finger request at a time").
        RecentPrompt.waitOut()
        let other = try s.pamtester(user: nil, options: ["-I", "tty=/dev/pts/92"])
        #expect(other.status != 0)
        #expect(other.info.contains { $0.hasPrefix("Place your finger on the sensor") }, "\(other.info)")
        #expect(!other.syslog.contains { $0.hasPrefix("Reused a biometric match") }, "\(other.syslog)")
        // The same terminal and requester: reused, nothing asked.
        let same = try s.pamtester(user: nil, options: ["-I", "tty=/dev/pts/91"])
        #expect(same.status == 0, "\(same.run.stderr)")
        #expect(same.info.isEmpty, "\(same.info)")
        #expect(same.syslog.contains { $0.hasPrefix("Reused a biometric match for user \(s.user)") })
      }
    }
  }
}
