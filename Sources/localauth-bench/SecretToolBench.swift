import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Item 11d: one password read by a process of its own, our keychain against gnome-keyring's (issue 28, "Cost").
/// Both sides are a program that starts, reads one stored password and exits, run as the benchmark user:
/// `la-app read` (SecItemCopyMatching through the Security product, which asks the setuid localauth-helper) against
/// `secret-tool lookup` (libsecret over D-Bus to gnome-keyring-daemon, its login keyring unlocked with a known password).
///
/// The helper reads only /etc/security/localauth.conf, so, as in item 7, the rounds run in a private mount namespace
/// with a copy of /etc/security bound over it; the timing loop itself runs there as the user inside a private session
/// bus (`dbus-run-session … localauth-bench --keychain-read-loop`), so both sides pay the same spawn and nothing else.
struct SecretToolBench {
  let paths: BenchPaths
  let user: BenchUser
  let passcode: String
  let cost: UInt
  let counts: BenchCounts
  /// Item 11a's in-process read with 10 items, in seconds, for the figure's meaning; nil when it was not measured.
  let inProcessRead: Double?

  /// A folder the user can reach: the setuid helper, la-app, a copy of this benchmark, the /etc/security copy, the
  /// keychain's state folder and the user's home and runtime folders for gnome-keyring.
  let folder = "/tmp/localauth-bench-secret"

  /// The figure's number.
  static let id = "11d"
  /// The figure's name.
  static let name = "A password read by a process of its own, as an ordinary user: la-app (SecItemCopyMatching through "
    + "localauth-helper) vs secret-tool lookup (gnome-keyring)"

  /// Measures and adds figure 11d; whatever is missing (gnome-keyring, secret-tool, the bench user) becomes a row
  /// that says so, never a failed benchmark.
  func measure(into report: inout Report) {
    do {
      try run(into: &report)
    } catch {
      say("  11d not measured: \(error)")
      report.figures.append(
        Figure(
          id: Self.id, name: Self.name, ours: "not measured", reference: "—", comparison: "—", target: "—", verdict: "—",
          meaning: "Not measured in this run: \(error)", json: .object([("error", .string("\(error)"))])))
    }
  }

  func run(into report: inout Report) throws {
    guard let secretTool = Spawn.which("secret-tool"), let daemon = Spawn.which("gnome-keyring-daemon") else {
      throw SetupError("gnome-keyring or secret-tool is not installed (apt-get install gnome-keyring libsecret-tools): skipped.")
    }
    guard let session = Spawn.which("dbus-run-session") else {
      throw SetupError("dbus-run-session is not installed (apt-get install dbus): skipped.")
    }
    guard let unshare = Spawn.which("unshare"), let setpriv = Spawn.which("setpriv"), let timeout = Spawn.which("timeout") else {
      throw SetupError("unshare, setpriv (util-linux) and timeout (coreutils) are needed.")
    }
    let appBuilt = paths.build + "/la-app"
    let helperBuilt = paths.build + "/localauth-helper"
    guard access(appBuilt, X_OK) == 0 else { throw SetupError("\(appBuilt) is missing; run make app-client.") }
    guard access(helperBuilt, X_OK) == 0 else { throw SetupError("\(helperBuilt) is missing; run make helper.") }
    Spawn.setup(["/bin/rm", "-rf", folder])
    defer { Spawn.setup(["/bin/rm", "-rf", folder]) }
    guard mkdir(folder, 0o755) == 0 else { throw SetupError("Cannot create \(folder).") }
    let helper = folder + "/localauth-helper"
    let app = folder + "/la-app"
    let bench = folder + "/localauth-bench"
    guard Spawn.setup(["/usr/bin/install", "-o", "root", "-g", "root", "-m", "4755", helperBuilt, helper]),
      Spawn.setup(["/usr/bin/install", "-m", "0755", appBuilt, app]),
      Spawn.setup(["/usr/bin/install", "-m", "0755", paths.build + "/localauth-bench", bench]),
      Spawn.setup(["/bin/cp", "-a", "/etc/security", folder + "/etc-security"])
    else { throw SetupError("Cannot install the helper, la-app or the benchmark, or copy /etc/security, under \(folder).") }
    let state = folder + "/state"
    try writeFile(folder + "/etc-security/localauth.conf", "state_dir=\(state)\nsensor=none\n", mode: 0o644)
    // The user's passcode, entered once in this boot: items of the default accessibility open without a prompt.
    _ = try BenchState(root: state, user: user.name, modality: .touchID, items: [], passcode: passcode, cost: cost)
    try FileStateStore(root: state).update(try UserName(user.name)) { record in
      let clock = SystemClock()
      record.lastPasscodeBootID = clock.bootID()
      record.lastPasscodeSuccess = clock.now()
    }
    // The user's own folders for gnome-keyring: a home (the login keyring goes to ~/.local/share/keyrings) and a
    // runtime folder (its control socket), and the two secrets it reads on standard input.
    let home = folder + "/home"
    let runtime = folder + "/run"
    for path in [home, runtime] {
      guard mkdir(path, 0o700) == 0, chown(path, user.uid, user.gid) == 0 else { throw SetupError("Cannot create \(path).") }
    }
    let keyringPassword = home + "/keyring.in"
    let itemSecret = home + "/item.in"
    try writeFile(keyringPassword, "bench-keyring-4711", mode: 0o600)
    try writeFile(itemSecret, KeychainReadLoop.secret, mode: 0o600)
    guard chown(keyringPassword, user.uid, user.gid) == 0, chown(itemSecret, user.uid, user.gid) == 0 else {
      throw SetupError("Cannot give \(home)'s files to \(user.name).")
    }

    // The loop's own lines go to a file of their own (in the user's home): the session bus writes to standard error.
    let output = folder + "/loop.out"
    let results = home + "/rounds.out"
    let script = "mount --bind \"$0\" /etc/security && exec \"$@\""
    // Bounded: a session bus or keyring that never answers ends the item after 10 minutes, not the benchmark.
    let loop = [
      timeout, "--kill-after=10", "600", unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", script, folder + "/etc-security",
      setpriv, "--reuid", String(user.uid), "--regid", String(user.gid), "--clear-groups",
      session, "--", bench, "--keychain-read-loop", String(counts.keychainProcessPairs), "3", keyringPassword, itemSecret,
      daemon, secretTool, app, results,
    ]
    let environment = Spawn.baseEnvironment + ["HOME=" + home, "XDG_RUNTIME_DIR=" + runtime, "LOCALAUTH_HELPER=" + helper]
    let finished = Spawn.run(loop, environment: environment, logPath: output)
    let lines = (readText(results) ?? "").split(separator: "\n")
    let samples = PairedSamples(roundLines: lines)
    guard finished.exitCode == 0, !samples.subject.isEmpty else {
      let said = lines.filter { $0.hasPrefix("setup ") }.suffix(3).joined(separator: " / ")
      let other = (readText(output) ?? "").split(separator: "\n").suffix(3).joined(separator: " / ")
      throw SetupError("The read loop failed (exit \(finished.exitCode)): \(said.isEmpty ? other : said)")
    }
    let a = Summary(samples.subject)
    let b = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let ms = { (s: Summary?) in s.map { fixed($0.median * 1e3, 1) } ?? "n/a" }
    let inside = inProcessRead.map { "; the read itself, in-process with 10 items (11a), is \(fixed($0 * 1e3, 3)) ms" } ?? ""
    report.figures.append(
      Figure(
        id: Self.id, name: Self.name, ours: describe(a, scale: 1e3, unit: "ms"), reference: describe(b, scale: 1e3, unit: "ms"),
        comparison: describeRatio(ratio), target: "none", verdict: "—",
        meaning: "A program that starts, reads one password and exits takes \(ms(a)) ms with our keychain (la-app as the user: "
          + "the Security product starts the setuid helper, which opens the item) against \(ms(b)) ms with gnome-keyring "
          + "(secret-tool lookup over D-Bus to a running, unlocked gnome-keyring-daemon)\(inside).",
        json: .object([
          ("unit", .string("ms")), ("subject", a?.json(scale: 1e3) ?? .null), ("reference", b?.json(scale: 1e3) ?? .null),
          ("ratio", ratio?.json() ?? .null), ("failed_rounds", .number(Double(samples.failures))),
          ("in_process_read_ms", inProcessRead.map { .number($0 * 1e3) } ?? .null),
        ])))
    report.notes.append(
      "Item 11d runs, as the benchmark user in a private mount namespace (a copy of /etc/security whose localauth.conf names a "
        + "state folder under \(folder)) and a private session bus (dbus-run-session), gnome-keyring-daemon --daemonize --unlock "
        + "--components=secrets (a new login keyring in a private home, unlocked with a known password); one item is stored "
        + "with `secret-tool store` and the same secret with `la-app add` (no access control). Each round runs `la-app read` "
        + "and `secret-tool lookup` once each, the order alternating; \(samples.subject.count) rounds after 3 dropped, "
        + "\(samples.failures) failed.")
  }
}

/// `localauth-bench --keychain-read-loop ROUNDS WARMUP KEYRING_PASSWORD ITEM_SECRET DAEMON SECRET_TOOL LA_APP RESULTS`:
/// run as the benchmark user inside SecretToolBench's namespace and session bus. Starts gnome-keyring, stores the item
/// on both sides, checks that each read returns it, then alternates the two reads run by run and writes to RESULTS
/// `round LA_APP_SECONDS SECRET_TOOL_SECONDS` per round (or `failed A_EXIT B_EXIT`); setup failures are
/// `setup …` lines and exit 1.
enum KeychainReadLoop {
  /// The stored secret, on both sides.
  static let secret = "bench-s3cret"

  static func main(_ arguments: [String]) -> Int32 {
    guard arguments.count == 8, let rounds = Int(arguments[0]), let warmUp = Int(arguments[1]) else { return 2 }
    let results = open(arguments[7], O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
    guard results >= 0 else { return 2 }
    defer { close(results) }
    /// One line to RESULTS, in one write.
    func say(_ text: String) {
      let line = text + "\n"
      _ = line.withCString { write(results, $0, strlen($0)) }
    }
    let (password, item, daemon, secretTool, app) = (arguments[2], arguments[3], arguments[4], arguments[5], arguments[6])
    let names = ["PATH", "LANG", "HOME", "XDG_RUNTIME_DIR", "DBUS_SESSION_BUS_ADDRESS", "LOCALAUTH_HELPER"]
    let environment = names.compactMap { name in getenv(name).map { name + "=" + String(cString: $0) } }
    let home = getenv("HOME").map { String(cString: $0) } ?? "/tmp"
    let log = home + "/setup.log"
    func fail(_ text: String) -> Int32 {
      let tail = (readText(log) ?? "").split(separator: "\n").suffix(2).joined(separator: " / ")
      say("setup \(text)\(tail.isEmpty ? "" : " (\(tail))")")
      return 1
    }
    guard Spawn.run([daemon, "--daemonize", "--unlock", "--components=secrets"], environment: environment, stdinPath: password, logPath: log).exitCode == 0
    else { return fail("gnome-keyring-daemon --unlock failed.") }
    let lookup = [secretTool, "lookup", "service", "bench", "account", "vault"]
    let read = [app, "read", "bench", "vault"]
    guard Spawn.run([secretTool, "store", "--label=bench", "service", "bench", "account", "vault"], environment: environment, stdinPath: item, logPath: log).exitCode == 0
    else { return fail("secret-tool store failed.") }
    guard Spawn.run([app, "add", "bench", "vault", secret], environment: environment, logPath: log).exitCode == 0
    else { return fail("la-app add failed.") }
    // Each side returns the secret before anything is timed.
    let (looked, readBack) = (home + "/lookup.out", home + "/read.out")
    guard Spawn.run(lookup, environment: environment, logPath: looked).exitCode == 0, readText(looked)?.hasPrefix(secret) == true
    else { return fail("secret-tool lookup did not return the secret: \(readText(looked) ?? "no output").") }
    guard Spawn.run(read, environment: environment, logPath: readBack).exitCode == 0, readText(readBack)?.contains("data " + secret) == true
    else { return fail("la-app read did not return the secret: \(readText(readBack) ?? "no output").") }
    for round in 0..<(warmUp + rounds) {
      var seconds = [0.0, 0.0]
      var exits: [Int32] = [0, 0]
      for step in 0..<2 {
        let k = (round + step) % 2
        let run = Spawn.run(k == 0 ? read : lookup, environment: environment)
        seconds[k] = run.seconds
        exits[k] = run.exitCode
      }
      guard round >= warmUp else { continue }
      say(exits == [0, 0] ? "round \(seconds[0]) \(seconds[1])" : "failed \(exits[0]) \(exits[1])")
    }
    return 0
  }
}
