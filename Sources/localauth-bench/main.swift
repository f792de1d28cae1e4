import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

// localauth-bench: `make bench`. Measures pam_localauth against pam_permit.so and pam_unix.so,
// prints a table, and writes build/bench.json and docs/PERFORMANCE.md. A benchmark never fails the build:
// whatever cannot be measured is reported as such and the exit status is 0.
//
// Usage: localauth-bench [--build DIR] [--json FILE] [--doc FILE] [--quick] [--only 1,2,…] [--source TEXT]
//   BENCH_QUICK=1 in the environment is the same as --quick.

if CommandLine.arguments.dropFirst().first == "--unprivileged-loop" {
  exit(UnprivilegedLoop.main(Array(CommandLine.arguments.dropFirst(2))))
}
if CommandLine.arguments.dropFirst().first == "--keychain-read-loop" {
  exit(KeychainReadLoop.main(Array(CommandLine.arguments.dropFirst(2))))
}
Bench.main()
exit(0)

/// The run, top to bottom.
enum Bench {
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    func option(_ name: String) -> String? {
      guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
      return arguments[i + 1]
    }
    let quick = arguments.contains("--quick") || ["1", "yes", "true"].contains(getenv("BENCH_QUICK").map { String(cString: $0) } ?? "")
    let buildDir = option("--build") ?? "build"
    let jsonPath = option("--json") ?? buildDir + "/bench.json"
    let docPath = option("--doc")
    let only = Set((option("--only") ?? "1,2,3,4,5,6,7,8,9,10,11").split(separator: ",").map(String.init))
    let counts = quick ? BenchCounts.quick : BenchCounts.full

    var report = Report(quick: quick)
    report.source = option("--source") ?? ""
    let began = monotonicSeconds()
    say("localauth-bench: \(quick ? "quick smoke run (BENCH_QUICK=1)" : "full run"), \(report.machine.map { "\($0.0) \($0.1)" }.joined(separator: "; "))")

    /// Runs one section; a failure becomes a "not measured" row instead of an error.
    func section(_ ids: String, _ title: String, _ body: (inout Report) throws -> Void) {
      guard !only.isDisjoint(with: ids.split(separator: ",").map(String.init)) else { return }
      say("[\(fixed(monotonicSeconds() - began, 0)) s] \(title)…")
      do {
        try body(&report)
      } catch {
        say("  not measured: \(error)")
        report.figures.append(
          Figure(
            id: ids, name: title, ours: "not measured", reference: "—", comparison: "—", target: "—", verdict: "—",
            meaning: "Not measured in this run: \(error)", json: .object([("error", .string("\(error)"))])))
      }
    }

    let secret = "bench-Passcode-4711"
    let cost = loginDefsYescryptCost()
    var benchUser: BenchUser?
    var paths: BenchPaths?
    do {
      let found = try BenchPaths(build: buildDir)
      paths = found
      guard geteuid() == 0 else { throw SetupError("The PAM figures need root (useradd, chpasswd, a root-owned state folder).") }
      guard access(found.module, R_OK) == 0, access(found.ctl, X_OK) == 0 else {
        throw SetupError("\(found.module) or \(found.ctl) is missing; run make module tools.")
      }
      try found.resetWork()
      let user = try BenchUser.create("labench5", log: found.log)
      benchUser = user
      Interruption.arm(user: user, paths: found)
      try user.setPassword(secret, cost: cost, scratch: found.work, log: found.log)
    } catch {
      say("Setup: \(error) Only the matcher, the intent check and, as root, the keychain's 11a–11c will be measured.")
    }

    if let paths, let user = benchUser {
      let pamtester = Spawn.which("pamtester")
      section("1,2,3", "Whole-process pamtester runs (items 1–3)") { report in
        guard let pamtester else { throw SetupError("pamtester is not installed (make deps installs it).") }
        try WholeProcessBench(paths: paths, user: user, passcode: secret, cost: cost, pamtester: pamtester, counts: counts).run(into: &report)
      }
      section("4", "In-process PAM cycles (item 4)") { report in
        try LoopBench(paths: paths, user: user, passcode: secret, cost: cost, counts: counts).run(into: &report)
      }
    }
    section("9", "The intent check's cost (item 9)") { report in IntentBench(counts: counts).run(into: &report) }
    section("5", "Matcher error rates and speed (item 5)") { report in MatcherBench(counts: counts).run(into: &report) }
    if let paths, let user = benchUser {
      section("7", "Unprivileged caller through localauth-helper (item 7)") { report in
        guard let pamtester = Spawn.which("pamtester") else { throw SetupError("pamtester is not installed (make deps installs it).") }
        try HelperBench(paths: paths, user: user, passcode: secret, cost: cost, pamtester: pamtester, counts: counts).run(into: &report)
      }
      section("10", "Apps run by ordinary users (item 10)") { report in
        try AppBench(paths: paths, user: user, passcode: secret, cost: cost, counts: counts).run(into: &report)
      }
      section("6", "Cost growth with enrolled items and users (item 6)") { report in
        try ScalingBench(paths: paths, user: user, passcode: secret, cost: cost, counts: counts).run(into: &report)
      }
      section("8", "A real reader: the fprintd path against pam_fprintd (item 8)") { report in
        guard let pamtester = Spawn.which("pamtester") else { throw SetupError("pamtester is not installed (make deps installs it).") }
        try FprintdBench(paths: paths, user: user, passcode: secret, cost: cost, pamtester: pamtester, counts: counts).run(into: &report)
      }
    }

    // 11a–11c need nothing of the setup above (no root, no bench user, no localauthctl); 11d needs the bench user.
    var inProcessRead: Double?
    section("11", "Keychain cost with 10,000 items (item 11)") { report in
      inProcessRead = try KeychainBench(counts: counts, parent: KeychainBench.defaultParent).run(into: &report)
    }
    section("11", "A password read in a process of its own against secret-tool (item 11d)") { report in
      let reads = paths.flatMap { paths in
        benchUser.map { SecretToolBench(paths: paths, user: $0, passcode: secret, cost: cost, counts: counts, inProcessRead: inProcessRead) }
      }
      if let reads {
        reads.measure(into: &report)
      } else {
        report.figures.append(
          Figure(
            id: SecretToolBench.id, name: SecretToolBench.name, ours: "not measured", reference: "—", comparison: "—", target: "—",
            verdict: "—", meaning: "Not measured in this run: it runs as the benchmark user, and the setup above failed.",
            json: .object([("error", .string("the setup failed"))])))
      }
    }

    report.notes = [
      "Whole-process figures (1–3) time `pamtester SERVICE labench5 authenticate` from posix_spawn to wait4, with "
        + "LD_PRELOAD=libpam_wrapper.so PAM_WRAPPER=1 PAM_WRAPPER_SERVICE_DIR=<bench service folder> for both sides; each service is one "
        + "`auth required` line (the module by absolute path with state_dir= and an empty conf=, or pam_permit.so / pam_unix.so).",
      "The timing harness is the benchmark's own (posix_spawn to wait4 on the monotonic clock, output to a log file) rather than "
        + "hyperfine, because hyperfine runs each command's repetitions in one batch and cannot alternate commands run by run.",
      "In items 1 and 1c a thread of the benchmark presents one good touch to each run's prompt as soon as it appears, as "
        + "`localauthctl touch --wait` would (a touch made while no prompt waits goes nowhere), so each run's time includes the "
        + "announcement, the presenter's wake-up and the doorbell; the state had one passcode authentication in this boot first, "
        + "so the reboot rule does not force the passcode.",
      "Item 2 gives the benchmark user the same secret as its /etc/shadow password (`chpasswd -c YESCRYPT -s \(cost)`, "
        + "YESCRYPT_COST_FACTOR from /etc/login.defs, default 5) and as its passcode (hash_cost default 5); the module runs with "
        + "sensor=none so the passcode is asked at once, as pam_unix asks the password. The user is removed at the end.",
      "Item 4a runs the biometric path inside the reuse window (reuse_duration=300) because 100,000 touches would measure "
        + "the record's fsyncs: each cycle is a complete pam_start_confdir/pam_authenticate/pam_end that loads and checks the record "
        + "and honours a match made minutes earlier, without a sensor wait. Item 4b presents a real touch "
        + "to every cycle's prompt from another thread as soon as the prompt waits; the cycle's time includes that hand-over.",
      "State folders live under build/bench-work on the build disk (the module's default /var/lib/localauth would be on the same "
        + "kind of disk), and the waiting prompts on tmpfs (runtime_dir= under /dev/shm, as /run/localauth is once installed), except for 1c and 6e–6h, which put them on tmpfs (/dev/shm) to separate the CPU's work from the disk's: every "
        + "successful match or passcode check writes the user's record with an fsync (and a failure with a second one, of the folder), "
        + "which pam_permit and pam_unix never do.",
      "Items 1d and 3b measure a floor: build/bench_floor.so (Sources/BenchFloorModule), a PAM module in Swift that only reads "
        + "its user, its arguments and one small file and answers PAM_SUCCESS, built in Embedded Swift with the same flags and "
        + "version script as pam_localauth, and run in the same rotation.",
      "Items 1e and 3d measure the one-module alternative (issue 40, item 4): build/one-module/pam_localauth.so, the objects "
        + "pam_localauth/extra.so is built from (every part, no LOCALAUTH_HOT_MODULE) linked exactly like the installed module "
        + "(its version script and symbol ordering, stripped), never installed; it runs in the same rotation as figures 1 and 3 with "
        + "a state folder of its own, so that the split module and one module are compared on the same machine at the same moments.",
      "Item 3: before its rounds, the module and pam_permit.so are written back and dropped from the page cache (sync, "
        + "posix_fadvise DONTNEED), so that the first run reads them in as a sudo after a reboot does. The kernel maps a file's pages "
        + "in 64 KiB windows around each page touched (fault-around), so a process's resident size depends on how the file's pages "
        + "sit in the cache: a module file just written by strip or cp gives figures up to 0.7 MiB higher than the same file read back.",
      "Item 5 uses BiometricSimulator and SimulatedMatcher from LocalAuthCore with fixed seeds: \(grouped(Int64(counts.matcherTemplates))) "
        + "enrolled templates (8 good captures each) per modality. The false-match rates (5b, 5c) score \(grouped(Int64(counts.impostorComparisons))) "
        + "fresh impostors per modality, each against the next template in turn: an impostor is a new vector of 128 standard normal "
        + "variates (ziggurat method on SplitMix64), which is exactly the distribution of another person's capture because identities "
        + "and sensor noise are isotropic, so the comparisons are independent and the binomial (Wilson) interval is honest. The speed (5a) "
        + "scores \(grouped(Int64(counts.matcherImpostors))) impostor captures at typical quality against every template. The false-reject "
        + "rates use \(grouped(Int64(counts.genuineCaptures))) fresh genuine captures for each of \(grouped(Int64(counts.genuineTemplates))) templates. "
        + "Intervals are Wilson 95%. In build/bench.json every median also has a distribution-free 95% confidence interval (median_ci95).",
      "The machine is shared with other builds: absolute times are noisy, the pair-by-pair ratios are the figures to read.",
    ] + report.notes

    report.duration = monotonicSeconds() - began
    say("")
    say(report.consoleText())
    if let paths {
      if let user = benchUser { user.remove(log: paths.log) }
      Spawn.setup(["/bin/cp", paths.log, paths.build + "/bench.log"])
      paths.removeWork()
    }
    do {
      try writeFile(jsonPath, report.json().rendered() + "\n", mode: 0o644)
      say("Wrote \(jsonPath).")
      if let docPath {
        try writeFile(docPath, report.markdown(), mode: 0o644)
        say("Wrote \(docPath).")
      }
    } catch {
      say("Could not write the results: \(error)")
    }
  }
}

/// Prints a line at once (unbuffered), so that progress shows while make runs.
func say(_ text: String) {
  let line = text + "\n"
  _ = line.withCString { write(1, $0, strlen($0)) }
}

/// Ctrl-C or a kill in the middle of a run still removes the benchmark user and the scratch folders.
enum Interruption {
  nonisolated(unsafe) private static var cleanup: (() -> Void)?

  /// Installs SIGINT and SIGTERM handlers that clean up and exit.
  static func arm(user: BenchUser, paths: BenchPaths) {
    cleanup = {
      user.remove(log: paths.log)
      paths.removeWork()
    }
    let handler: @convention(c) (Int32) -> Void = { signal in
      say("Interrupted: removing the benchmark user and scratch folders.")
      Interruption.cleanup?()
      _exit(128 + signal)
    }
    signal(SIGINT, handler)
    signal(SIGTERM, handler)
  }
}
