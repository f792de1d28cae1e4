import Foundation
import LocalAuthCore
import LocalAuthTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// One test's private world: a temporary folder with a root-owned 0700 state folder, a service folder
/// for pam_start_confdir and pam_wrapper, an empty configuration file (so /etc/security/localauth.conf
/// never leaks in), and a test user created with `useradd -M`. `close()` removes all of it.
final class Sandbox {
  /// The temporary folder (0755, so an unprivileged process can reach the service folder).
  let root: String
  /// The state folder (root, 0700).
  let stateDir: String
  /// The folder holding service files.
  let services: PAMServiceFolder
  /// The service folder's path.
  var serviceDir: String { services.path }
  /// The explicit, empty configuration file passed as `conf=`.
  let configFile: String
  /// The test user's name.
  let user: String
  /// The service every scenario uses.
  let service = "localauth-test"

  init() throws {
    root = try TemporaryFolder.make("/tmp/localauth-it.XXXXXX", mode: 0o755)
    stateDir = root + "/state"
    configFile = root + "/localauth.conf"
    var rng = SystemRandomNumberGenerator()
    user = "lat" + String(rng.next() as UInt32, radix: 16)
    do {
      guard mkdir(stateDir, 0o700) == 0 else { throw SandboxError.setup("Cannot create \(stateDir).") }
      services = try PAMServiceFolder.create(root + "/pam.d")
      try TextFile.write(configFile, "# empty: defaults only\n", mode: 0o644)
      try FixedWorld.write(stateDir: stateDir, owner: user, impostors: ["intruder"])
      try Users.add(user)
    } catch {
      TemporaryFolder.remove(root)
      throw error
    }
  }

  /// Removes the user and the folder.
  func close() {
    Users.remove(user)
    TemporaryFolder.remove(root)
  }

  /// The test user's uid.
  var uid: UInt32 { getpwnam(user).map { $0.pointee.pw_uid } ?? 0 }

  /// The module's line with the arguments every test needs (state_dir, conf, a short sensor timeout, and
  /// `nodelay`, so that the many failing scenarios do not each wait libpam's 2 s failure pause; FailDelayTests
  /// writes its own lines without it).
  ///
  /// pamtester and PAMHarness answer through pipes, with no controlling terminal: the request would not be visible
  /// (docs/RULES.md, "Intent") and no finger would be asked. A scripted conversation is this test's UI, so the
  /// line names the sandbox's service in `gui_services=`, as a display manager's stack would; an argument given
  /// later (IntentTests) replaces it.
  func moduleLine(_ arguments: [String], type: String = "auth", control: String = "required") -> String {
    ([type, control, Artifacts.module, "state_dir=" + stateDir, "conf=" + configFile, "timeout=1", "nodelay",
      "gui_services=" + service] + arguments)
      .joined(separator: " ")
  }

  /// Writes the service file `name` with `lines`. A line made by `moduleLine` names the sandbox's service in
  /// `gui_services=`; in a file of another name it names that service too, so that the scripted conversation is that
  /// service's UI as well.
  func writeService(_ lines: [String], name: String? = nil) throws {
    guard let name, name != service else { return try services.write(service, lines: lines) }
    let mark = " gui_services=" + service
    try services.write(name, lines: lines.map { line in
      line.hasSuffix(mark) ? line + "," + name : line.replacingOccurrences(of: mark + " ", with: mark + "," + name + " ")
    })
  }

  /// pam_wrapper's variables for a pamtester run on this sandbox's service folder, with its debug messages (they
  /// carry the verdict `PamtesterRun` reads), and `extra`.
  func pamtesterEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    services.wrapperEnvironment(["PAM_WRAPPER_DEBUGLEVEL": "2"].merging(extra) { $1 })
  }

  /// Runs localauthctl on this sandbox's state folder; it must succeed.
  @discardableResult
  func ctl(_ arguments: String..., stdin: String? = nil) throws -> ProcessRun {
    try Run.checked(Artifacts.ctl, arguments + ["--state-dir", stateDir], stdin: stdin)
  }

  /// Enrolls `finger` for the test user.
  func enroll(_ finger: String = "right-index") throws { try ctl("enroll", user, finger) }

  /// Sets the test user's passcode.
  func setPasscode(_ passcode: String = "1234") throws { try ctl("passcode", "set", user, stdin: passcode + "\n") }

  /// Touches and button presses for the next PAM run, in order (`localauthctl touch` arguments).
  private(set) var pendingTouches: [[String]] = []

  /// A capture of the user's own finger at full quality (or someone else's with `from`), presented to the
  /// next prompt of the next PAM run.
  func touch(_ finger: String = "right-index", from: String? = nil) throws {
    var arguments = ["touch", user, finger, "--quality", "1"]
    if let from { arguments += ["--from", from] }
    pendingTouches.append(arguments)
  }

  /// Presses the fallback button of the next prompt.
  func pressFallback() throws { pendingTouches.append(["touch", user, "--fallback"]) }

  /// Presses Cancel on the next prompt.
  func pressCancel() throws { pendingTouches.append(["touch", user, "--cancel"]) }

  /// Runs `body` (a PAM run) while a background shell presents the pending touches one after another, each to
  /// the prompt that waits when it is its turn (`touch --wait`), as a person touching the sensor would. What is
  /// left when `body` returns goes nowhere. Start what takes long (a tmux server, a screen locker) before this call:
  /// each touch waits at most 10 s for its prompt, and the toucher cannot end a touch early (it inherits the test
  /// thread's signal mask, in which SIGTERM is blocked), so a longer wait would lengthen every test that leaves one.
  func presentingTouches<T>(_ body: () throws -> T) throws -> T {
    guard !pendingTouches.isEmpty else { return try body() }
    let toucher = Toucher(pendingTouches.map { [Artifacts.ctl] + $0 + ["--wait", "10", "--state-dir", stateDir] })
    pendingTouches = []
    defer { toucher.stop() }
    return try body()
  }

  /// The first prompt `localauthctl prompts USER --json` lists within `seconds` (polled), or nil.
  func announcedPrompt(within seconds: Double = 15) throws -> [String: Any]? {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
      let out = try ctl("prompts", user, "--json").stdout
      if let first = (try? JSONSerialization.jsonObject(with: Data(out.utf8)) as? [[String: Any]])?.first { return first }
      usleep(50_000)
    }
    return nil
  }

  /// Changes the user's record directly, as the module would find it (a test pre-seeds state this way).
  func seed(_ body: (inout UserRecord) -> Void) throws {
    try FileStateStore(root: stateDir).update(try UserName(user)) { record in body(&record) }
  }

  /// The user's record now.
  func record() throws -> UserRecord? { try FileStateStore(root: stateDir).load(try UserName(user)) }

  /// Marks the passcode as entered in this boot with the enrollment acknowledged, so biometry may be used.
  func satisfyPasscodeRules() throws {
    let clock = SystemClock()
    try seed { record in
      record.lastPasscodeBootID = clock.bootID()
      record.lastPasscodeSuccess = clock.now()
      record.lastSuccess = clock.now()
      record.acknowledgedDomainState = record.domainState
    }
  }

  /// The path of the user's state file.
  var recordPath: String { stateDir + "/users/" + user }
}

/// A sandbox that could not be set up.
enum SandboxError: Error {
  case setup(String)
}

/// Creates a sandbox, runs `body`, and always cleans up.
func withSandbox<T>(_ body: (Sandbox) throws -> T) throws -> T {
  let sandbox = try Sandbox()
  defer { sandbox.close() }
  return try body(sandbox)
}

/// Test users: created without a home folder and removed at the end. useradd and userdel lock
/// /etc/passwd; another test process may hold it for a moment, so a busy lock is retried.
enum Users {
  static func add(_ name: String) throws {
    var last: ProcessRun?
    for _ in 0..<50 {
      let run = try Run.program("/usr/sbin/useradd", ["-M", "-N", "-s", "/usr/sbin/nologin", "-c", "pam_localauth test", name])
      if run.status == 0 { return }
      last = run
      usleep(100_000)
    }
    throw SandboxError.setup("useradd \(name) failed: \(last?.stderr ?? "")")
  }

  static func remove(_ name: String) {
    for _ in 0..<50 {
      guard let run = try? Run.program("/usr/sbin/userdel", [name]) else { return }
      if run.status == 0 || run.status == 6 { return }
      usleep(100_000)
    }
  }
}

/// Runs `localauthctl touch` commands one after another on a thread of its own; `stop()` ends the one running.
final class Toucher: @unchecked Sendable {
  private let lock = NSLock()
  private var current: Process?
  private var stopped = false
  private let done = DispatchSemaphore(value: 0)

  init(_ commands: [[String]]) {
    Thread.detachNewThread { [self] in
      for command in commands {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        let started: Bool = lock.withLock {
          guard !stopped, (try? process.run()) != nil else { return false }
          current = process
          return true
        }
        guard started else { break }
        process.waitUntilExit()
      }
      done.signal()
    }
  }

  /// Ends the touch that still waits, and waits for the thread.
  func stop() {
    lock.withLock {
      stopped = true
      if let current, current.isRunning { current.terminate() }
    }
    _ = done.wait(timeout: .now() + 30)
  }
}
