import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Item 10: an app run by an ordinary user against the same app run by root (issue 21). la-app
/// (Tests/Fixtures/AppClient, `make app-client`) evaluates biometrics with its own dialog (no terminal either
/// side) and exits; a touch is presented to its prompt as it appears (`localauthctl touch --wait`). Run by root,
/// the context evaluates in the app's process; run by the bench user, it goes through the setuid helper's app
/// session. Both read the same configuration (a copy of /etc/security bound in a private mount namespace) and the
/// same state, each for its own user; rounds alternate which goes first. A third pair times `la-app can` (no
/// prompt, no touch), which isolates the helper's spawn and protocol from the evaluation.
struct AppBench {
  let paths: BenchPaths
  let user: BenchUser
  let passcode: String
  let cost: UInt
  let counts: BenchCounts

  /// A folder every user can reach, whatever the build folder's mode (`make test` makes it root's alone).
  let folder = "/tmp/localauth-bench-app"

  func run(into report: inout Report) throws {
    let appBuilt = paths.build + "/la-app"
    let app = folder + "/la-app"
    let helperBuilt = paths.build + "/localauth-helper"
    guard access(appBuilt, X_OK) == 0 else { throw SetupError("\(appBuilt) is missing; run make app-client.") }
    guard access(helperBuilt, X_OK) == 0 else { throw SetupError("\(helperBuilt) is missing; run make helper.") }
    guard let unshare = Spawn.which("unshare"), let setpriv = Spawn.which("setpriv") else {
      throw SetupError("unshare and setpriv (util-linux) are needed.")
    }
    Spawn.setup(["/bin/rm", "-rf", folder])
    defer { Spawn.setup(["/bin/rm", "-rf", folder]) }
    guard mkdir(folder, 0o755) == 0 else { throw SetupError("Cannot create \(folder).") }
    let helper = folder + "/localauth-helper"
    let state = folder + "/state"
    guard Spawn.setup(["/usr/bin/install", "-o", "root", "-g", "root", "-m", "4755", helperBuilt, helper]),
      Spawn.setup(["/usr/bin/install", "-m", "0755", appBuilt, app]),
      Spawn.setup(["/bin/cp", "-a", "/etc/security", folder + "/etc-security"])
    else { throw SetupError("Cannot install the helper or copy /etc/security under \(folder).") }
    // An app's own dialog counts only for a system program named in gui_services= (docs/HELPER.md, "What the helper
    // believes"): in each run's mount namespace la-app is bound at /usr/libexec/la-app, on a tmpfs of root's.
    try writeFile(
      folder + "/etc-security/localauth.conf", "state_dir=\(state)\ntimeout=10\ngui_services=la-app\n", mode: 0o644)
    _ = try BenchState(root: state, user: user.name, modality: .touchID, items: ["right-index"], passcode: passcode, cost: cost)
    let ctl = paths.ctl
    let secret = folder + "/secret.in"
    try writeFile(secret, passcode + "\n", mode: 0o600)
    guard Spawn.setup([ctl, "enroll", "root", "right-index", "--state-dir", state]),
      Spawn.setup([ctl, "passcode", "set", "root", "--state-dir", state], stdinPath: secret)
    else { throw SetupError("Cannot enroll root in \(state).") }
    for name in ["root", user.name] {
      try FileStateStore(root: state).update(try UserName(name)) { record in
        let clock = SystemClock()
        record.lastPasscodeBootID = clock.bootID()
        record.lastPasscodeSuccess = clock.now()
        record.lastSuccess = clock.now()
        record.acknowledgedDomainState = record.domainState
      }
    }
    // Each run starts a login session of its own (as Tests/scripts/login-session.sh does): a user's process in no login
    // session is not taken as local, and would get no finger (docs/RULES.md, "Remote sessions").
    let script = "echo 0 > /proc/self/loginuid && mount --bind \"$0\" /etc/security && "
      + "mount -t tmpfs -o mode=0755,size=64k tmpfs /usr/libexec && : > /usr/libexec/la-app && "
      + "mount --bind \"$1\" /usr/libexec/la-app && shift && exec \"$@\""
    let asRoot = [unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", script, folder + "/etc-security", app]
    let bound = "/usr/libexec/la-app"
    let asUser = asRoot + [setpriv, "--reuid", String(user.uid), "--regid", String(user.gid), "--clear-groups"]
    let environment = Spawn.baseEnvironment + ["LOCALAUTH_HELPER=" + helper]
    // The runs' output goes to the bench's log (kept as build/bench.log; opened by root, before setpriv).
    let log = paths.log
    /// la-app `arguments` run with `prefix`, a touch of `who`'s finger presented to its prompt as it appears.
    func touched(_ prefix: [String], _ who: String, _ arguments: [String]) -> ProcessResult {
      let toucher = Spawn.start(
        [ctl, "touch", who, "right-index", "--quality", "1", "--wait", "10", "--state-dir", state],
        environment: Spawn.baseEnvironment)
      let run = Spawn.run(prefix + [bound] + arguments, environment: environment, logPath: log)
      Spawn.reap(toucher)
      return run
    }
    func evaluate(_ prefix: [String], _ who: String) -> ProcessResult {
      touched(prefix, who, ["dialog", "biometrics", "unlock the bench"])
    }
    func read(_ prefix: [String], _ who: String) -> ProcessResult { touched(prefix, who, ["dialog-read", "bench", "vault"]) }
    for prefix in [asUser, asRoot] {
      let added = Spawn.run(prefix + [bound, "add", "bench", "vault", "s3cret", "biometryAny"], environment: environment, logPath: log)
      guard added.exitCode == 0 else {
        throw SetupError("la-app could not add the keychain item: \((readText(log) ?? "").suffix(300))")
      }
    }
    func can(_ prefix: [String]) -> ProcessResult {
      Spawn.run(prefix + [bound, "can", "biometrics"], environment: environment, logPath: log)
    }
    let pairs = max(6, counts.passcodePairs / 2)
    // One finger request at a time (docs/RULES.md): a user's prompt that starts within two seconds of that user's
    // last one ending gets no finger. With the order alternating (A B, B A, …), each round would start with the side
    // that ended the round before, a few milliseconds after it: every round failed. A user does not run the app twice
    // in two seconds, so each side's run starts once that window has passed, waiting outside the timed run.
    let pacing = PromptPacing()
    let evaluation = alternate(pairs, pacing: pacing) { $0 == 0 ? evaluate(asUser, user.name) : evaluate(asRoot, "root") }
    let keychain = alternate(pairs, pacing: pacing) { $0 == 0 ? read(asUser, user.name) : read(asRoot, "root") }
    let preflight = alternate(pairs) { $0 == 0 ? can(asUser) : can(asRoot) }
    report.figures.append(figure("10", "An app's finger evaluation, run by an ordinary user vs by root", evaluation,
      meaning: { a, b in "la-app started, evaluated with a touch given to its prompt, and exited in \(a) ms for an ordinary user (through "
        + "localauth-helper's app session) against \(b) ms for root (in its own process)." }))
    report.figures.append(figure("10b", "An app's keychain read after a touch, ordinary user vs root", keychain,
      meaning: { a, b in "A biometry-protected item read with one touch, the whole app run: \(a) ms for an ordinary user "
        + "(the item opened by the helper, the data sent to the app) against \(b) ms for root." }))
    report.figures.append(figure("10c", "Where the extra time goes: canEvaluatePolicy alone (spawn and protocol)", preflight,
      judged: false,
      meaning: { a, b in "With no prompt and no touch, what an ordinary user's app pays more is the setuid helper's start "
        + "and one call on its socket: \(a) ms against \(b) ms; the state work is the same code on both sides." }))
  }

  /// Runs `pairs` rounds (after 2 warm-up rounds) of `body(0)` (the subject) and `body(1)` (the reference),
  /// alternating which goes first; with `pacing`, each side's run waits out the prompt registry's window first.
  func alternate(_ pairs: Int, pacing: PromptPacing? = nil, _ body: (Int) -> ProcessResult) -> PairedSamples {
    var samples = PairedSamples()
    for round in 0..<(pairs + 2) {
      var seconds = [0.0, 0.0]
      var ok = true
      for step in 0..<2 {
        let k = (round + step) % 2
        pacing?.waitBeforeRun(of: k)
        let run = body(k)
        pacing?.runEnded(of: k)
        seconds[k] = run.seconds
        if run.exitCode != 0 { ok = false }
      }
      guard round >= 2 else { continue }
      if ok { samples.add(subject: seconds[0], reference: seconds[1]) } else { samples.failures += 1 }
    }
    return samples
  }

  /// A figure; `judged` false for one that only shows where time goes (no target).
  func figure(
    _ id: String, _ name: String, _ samples: PairedSamples, judged: Bool = true, meaning: (String, String) -> String
  ) -> Figure {
    let a = Summary(samples.subject)
    let b = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let ms = { (s: Summary?) in s.map { fixed($0.median * 1e3, 1) } ?? "n/a" }
    return Figure(
      id: id, name: name, ours: describe(a, scale: 1e3, unit: "ms"), reference: describe(b, scale: 1e3, unit: "ms"),
      comparison: describeRatio(ratio), target: judged ? "≤ 1.3×" : "none",
      verdict: judged ? verdict(ratio.map { $0.median <= 1.3 }) : "—",
      meaning: meaning(ms(a), ms(b)),
      json: .object([
        ("unit", .string("ms")), ("subject", a?.json(scale: 1e3) ?? .null), ("reference", b?.json(scale: 1e3) ?? .null),
        ("ratio", ratio?.json() ?? .null), ("failed_rounds", .number(Double(samples.failures))),
        ("target_ratio", judged ? .number(1.3) : .null),
      ]))
  }
}

/// When each side of a paired figure last ran a finger prompt, so that its next one starts only after the prompt
/// registry's window (`PromptRegistry.recentWindow`, and 0.2 s more) since that side's last run ended: the bench,
/// like a person, asks for one user's finger once, not twice within two seconds. The wait is outside the timed run.
final class PromptPacing {
  private var ended: [Int: Double] = [:]

  /// Sleeps until side `k`'s last run ended more than the registry's window ago.
  func waitBeforeRun(of k: Int) {
    guard let last = ended[k] else { return }
    let wait = last + PromptRegistry.recentWindow + 0.2 - monotonicSeconds()
    if wait > 0 { usleep(UInt32(wait * 1e6)) }
  }

  /// Notes that side `k`'s run ended now.
  func runEnded(of k: Int) { ended[k] = monotonicSeconds() }
}
