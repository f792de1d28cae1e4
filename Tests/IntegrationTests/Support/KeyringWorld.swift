import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A desktop login's surroundings for a sandbox's test user (../shared/reference/TEST-RECIPES.md, section C): a
/// Unix password, a home folder (where gnome-keyring keeps `~/.local/share/keyrings/login.keyring`), a runtime
/// folder R (the user's, 0700) and a session bus run as the user on `R/bus`, where gnome-keyring-daemon registers.
///
/// pamtester runs as root with XDG_RUNTIME_DIR=R (without it the daemon starts but cannot be reached);
/// pam_gnome_keyring starts the daemon as the user, detached from pamtester, and D-Bus activation starts one when a
/// client asks for org.freedesktop.secrets and none runs. `close()` ends every daemon by its pid: the bus (a child
/// of the test), then each process whose real uid is the test user's (a user that exists for this world only),
/// and waits, bounded, until none is left even as a zombie (init here reaps orphans about a second late, and
/// userdel refuses a user that still owns a process). Then it removes the home folder and the runtime folder.
final class KeyringWorld {
  let sandbox: Sandbox
  let user: String
  let uid: uid_t
  let gid: gid_t
  /// The user's home folder (from the password database), created here and removed by `close()`.
  let home: String
  /// The runtime folder R: XDG_RUNTIME_DIR for pamtester and for everything run as the user.
  let runtimeDir: String
  /// The session bus's socket, `R/bus`.
  let busSocket: String
  private var bus: WorldProcess?
  private var createdHome = false
  private var closed = false

  static let dbusDaemon = "/usr/bin/dbus-daemon"
  static let keyringDaemon = "/usr/bin/gnome-keyring-daemon"
  static let gdbus = "/usr/bin/gdbus"
  static let secretTool = "/usr/bin/secret-tool"
  static let setpriv = "/usr/bin/setpriv"
  static let chpasswd = "/usr/sbin/chpasswd"
  /// The kernel's name of gnome-keyring-daemon (a command name is cut to 15 characters).
  static let keyringDaemonName = "gnome-keyring-d"
  /// Debian's pam_gnome_keyring (libpam-gnome-keyring).
  static let pamGnomeKeyring: String? = [
    "/lib/x86_64-linux-gnu/security/pam_gnome_keyring.so", "/usr/lib/x86_64-linux-gnu/security/pam_gnome_keyring.so",
    "/lib/aarch64-linux-gnu/security/pam_gnome_keyring.so", "/usr/lib/aarch64-linux-gnu/security/pam_gnome_keyring.so",
  ].first(where: FileManager.default.fileExists(atPath:))

  /// True when the world can run here: the real-PAM artefacts, pamtester under pam_wrapper, gnome-keyring with its
  /// PAM module, dbus-daemon, gdbus, secret-tool, setpriv and chpasswd.
  static var available: Bool {
    Artifacts.pamtesterAvailable && pamGnomeKeyring != nil
      && [dbusDaemon, keyringDaemon, gdbus, secretTool, setpriv, chpasswd].allSatisfy(FileManager.default.isExecutableFile(atPath:))
  }

  static let skipMessage: Comment = """
    Needs the real-PAM artefacts, pamtester, libpam-wrapper, gnome-keyring, libpam-gnome-keyring, libsecret-tools, dbus \
    and libglib2.0-bin (make deps installs them).
    """

  /// Gives the sandbox's user `password`, a home folder and a runtime folder, and starts the session bus (waited
  /// for at most `timeout` seconds). On failure everything made so far is undone.
  init(_ sandbox: Sandbox, password: String, timeout: Double = 10) throws {
    self.sandbox = sandbox
    user = sandbox.user
    guard let entry = getpwnam(user) else { throw KeyringWorldError.setup("getpwnam \(user) failed") }
    uid = entry.pointee.pw_uid
    gid = entry.pointee.pw_gid
    home = String(cString: entry.pointee.pw_dir)
    runtimeDir = sandbox.root + "/run"
    busSocket = runtimeDir + "/bus"
    guard busSocket.utf8.count < 90 else { throw KeyringWorldError.setup("\(busSocket) is too long for a socket path") }
    do {
      try setPassword(password)
      guard home.hasPrefix("/"), !FileManager.default.fileExists(atPath: home) else {
        throw KeyringWorldError.setup("the test user's home \(home) exists already")
      }
      try makeOwnedFolder(home)
      createdHome = true
      try makeOwnedFolder(runtimeDir)
      let daemon = try WorldProcess(
        name: "dbus-daemon (session, as \(user))", executable: Self.setpriv,
        arguments: userCommand(Self.dbusDaemon, ["--session", "--address=" + busAddress, "--nofork", "--nopidfile"]),
        environment: userEnvironment, log: sandbox.root + "/session-bus.log")
      bus = daemon
      try daemon.waitUntil("the session bus listens on \(busSocket)", timeout: timeout) { FprintdWorld.canConnect(busSocket) }
    } catch {
      close()
      throw error
    }
  }

  deinit { close() }

  /// The bus's address (DBUS_SESSION_BUS_ADDRESS).
  var busAddress: String { "unix:path=" + busSocket }

  /// What a program run as the user gets besides PATH and LANG.
  var userEnvironment: [String: String] {
    ["HOME": home, "USER": user, "LOGNAME": user, "XDG_RUNTIME_DIR": runtimeDir, "DBUS_SESSION_BUS_ADDRESS": busAddress]
  }

  /// The login keyring's file, which the first password login creates.
  var loginKeyring: String { home + "/.local/share/keyrings/login.keyring" }

  /// Sets the user's Unix password with chpasswd, outside PAM (as an administrator would). chpasswd needs the
  /// /etc/shadow lock, which another suite's useradd or userdel may hold a moment, so a failure is retried.
  func setPassword(_ password: String) throws {
    var last: ProcessRun?
    for _ in 0..<50 {
      let run = try Run.program(Self.chpasswd, [], stdin: "\(user):\(password)\n")
      if run.status == 0 { return }
      last = run
      usleep(100_000)
    }
    throw KeyringWorldError.setup("chpasswd for \(user) failed: \(last?.stderr ?? "")")
  }

  // MARK: Runs

  /// setpriv's arguments to run `executable` as the user (real and effective ids, and the user's groups).
  private func userCommand(_ executable: String, _ arguments: [String]) -> [String] {
    ["--reuid=\(uid)", "--regid=\(gid)", "--init-groups", executable] + arguments
  }

  /// Runs a program as the user, with HOME, XDG_RUNTIME_DIR and the session bus's address.
  @discardableResult
  func asUser(_ executable: String, _ arguments: [String], stdin: String? = nil, timeout: Double = 20) throws -> ProcessRun {
    try Run.program(Self.setpriv, userCommand(executable, arguments), stdin: stdin, environment: userEnvironment, timeout: timeout)
  }

  /// Runs pamtester as root through pam_wrapper on the sandbox's service folder, as Sandbox.pamtester does, with
  /// XDG_RUNTIME_DIR=R added, while the sandbox's pending touches are presented.
  func pamtester(
    service: String, _ operations: [String] = ["authenticate"], stdin: String = "", options: [String] = []
  ) throws -> PamtesterRun {
    let environment = sandbox.pamtesterEnvironment(["XDG_RUNTIME_DIR": runtimeDir])
    let run = try sandbox.presentingTouches {
      try Run.program(Artifacts.pamtester, options + [service, user] + operations, stdin: stdin, environment: environment)
    }
    return PamtesterRun(run: run)
  }

  // MARK: The keyring, as the user sees it

  /// The login collection's `Locked` property, read as the user through the session bus (the recipe's gdbus call).
  /// When no gnome-keyring-daemon runs, the call starts one by D-Bus activation, which loads login.keyring locked.
  func loginCollectionLocked() throws -> Bool {
    let run = try asUser(Self.gdbus, [
      "call", "--session", "--timeout", "15", "-d", "org.freedesktop.secrets", "-o", "/org/freedesktop/secrets/collection/login",
      "-m", "org.freedesktop.DBus.Properties.Get", "org.freedesktop.Secret.Collection", "Locked",
    ])
    switch run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) {
    case "(<true>,)": return true
    case "(<false>,)": return false
    default: throw KeyringWorldError.failed("gdbus Get Locked", run)
    }
  }

  /// Stores `secret` in the default (login) collection with secret-tool, as the user; the collection must be unlocked.
  func storeSecret(_ secret: String, attribute: String, value: String) throws {
    let run = try asUser(Self.secretTool, ["store", "--label=pam_localauth test", attribute, value], stdin: secret)
    guard run.status == 0 else { throw KeyringWorldError.failed("secret-tool store", run) }
  }

  /// The secret stored under `attribute`=`value`, read with secret-tool as the user (exactly as printed); nil
  /// when secret-tool fails. Only for an unlocked collection: on a locked item secret-tool asks the daemon to
  /// unlock it, and the daemon started by pam_gnome_keyring then waits for a prompter that never comes.
  func lookupSecret(attribute: String, value: String) throws -> String? {
    let run = try asUser(Self.secretTool, ["lookup", attribute, value], timeout: 10)
    return run.status == 0 ? run.stdout : nil
  }

  // MARK: Daemons

  /// The live (not zombie) gnome-keyring-daemons of the user.
  var keyringDaemons: [Int32] {
    Self.processes(ofUID: uid).filter { $0.name == Self.keyringDaemonName && ProcessTree.alive($0.pid) }.map(\.pid)
  }

  /// Ends the user's gnome-keyring-daemons (SIGKILL by pid, as a logout ends the session's daemon), so that the
  /// next login finds login.keyring locked. Waits at most `timeout` seconds until none is alive.
  func stopKeyringDaemons(timeout: Double = 5) throws {
    for pid in keyringDaemons { ProcessTree.kill(pid, timeout: timeout) }
    let left = keyringDaemons
    guard left.isEmpty else { throw KeyringWorldError.setup("gnome-keyring-daemon \(left) did not end") }
  }

  /// Ends the daemons and removes the home and runtime folders. Safe to call twice; the sandbox removes the user.
  func close() {
    guard !closed else { return }
    closed = true
    try? stopKeyringDaemons()
    bus?.stop()
    // Anything else the user still runs (a client cut off by a time limit, a daemon started meanwhile): every
    // process of this uid is the world's. Wait until the kernel has dropped them all, zombies included.
    let deadline = Date().addingTimeInterval(15)
    while true {
      let left = Self.processes(ofUID: uid)
      if left.isEmpty || Date() >= deadline { break }
      for process in left where ProcessTree.alive(process.pid) { _ = Glibc.kill(process.pid, SIGKILL) }
      usleep(50_000)
    }
    if createdHome { try? FileManager.default.removeItem(atPath: home) }
    try? FileManager.default.removeItem(atPath: runtimeDir)
  }

  /// Every process whose real uid is `uid`, with its command name (from /proc/<pid>/status).
  static func processes(ofUID uid: uid_t) -> [(pid: Int32, name: String)] {
    var found: [(pid: Int32, name: String)] = []
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let pid = Int32(entry), let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8) else {
        continue
      }
      var name = ""
      var realUID: uid_t?
      for line in status.split(separator: "\n") {
        if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
        if line.hasPrefix("Uid:") { realUID = line.dropFirst(4).split(whereSeparator: \.isWhitespace).first.flatMap { uid_t($0) } }
      }
      if realUID == uid { found.append((pid, name)) }
    }
    return found
  }

  // MARK: Files

  /// Makes `path` a folder of the user's, 0700.
  private func makeOwnedFolder(_ path: String) throws {
    guard mkdir(path, 0o700) == 0, chown(path, uid, gid) == 0, chmod(path, 0o700) == 0 else {
      throw KeyringWorldError.setup("cannot make \(path) for \(user): \(String(cString: strerror(errno)))")
    }
  }

  /// A script for `auth optional pam_exec.so expose_authtok quiet SCRIPT` that writes its standard input (the token
  /// pam_exec exposes) to `exposedFile`, byte for byte.
  func writeExposeScript() throws -> String {
    let script = sandbox.root + "/expose-authtok"
    try "#!/bin/sh\nexec cat > '\(exposedFile)'\n".write(toFile: script, atomically: true, encoding: .utf8)
    guard chmod(script, 0o755) == 0 else { throw KeyringWorldError.setup("chmod \(script) failed") }
    return script
  }

  /// Where the expose script writes.
  var exposedFile: String { sandbox.root + "/exposed-authtok" }

  /// What the expose script wrote last (nil when it did not run), and removes it for the next run.
  func takeExposed() -> Data? {
    defer { unlink(exposedFile) }
    return FileManager.default.contents(atPath: exposedFile)
  }
}

/// Why the world could not do something.
enum KeyringWorldError: Error, CustomStringConvertible {
  case setup(String)
  case failed(String, ProcessRun)

  var description: String {
    switch self {
    case .setup(let what): "KeyringWorld: \(what)"
    case .failed(let command, let run):
      "KeyringWorld: \(command) exited \(run.status):\nstdout: \(run.stdout)\nstderr: \(run.stderr)"
    }
  }
}

/// Creates a sandbox and a keyring world for its user with `password`, runs `body`, and always ends the world's
/// daemons and removes its folders before the sandbox removes the user.
func withKeyringWorld<T>(password: String, _ body: (Sandbox, KeyringWorld) throws -> T) throws -> T {
  try withSandbox { sandbox in
    let world = try KeyringWorld(sandbox, password: password)
    defer { world.close() }
    return try body(sandbox, world)
  }
}
