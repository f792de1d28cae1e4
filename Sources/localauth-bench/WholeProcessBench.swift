#if canImport(Glibc)
import Glibc
#endif

/// Items 1–3: whole `pamtester SERVICE USER authenticate` processes through pam_wrapper, ours against
/// pam_permit.so and pam_unix.so, alternating pair by pair (A B, then B A, …).
struct WholeProcessBench {
  let paths: BenchPaths
  let user: BenchUser
  let passcode: String
  let cost: UInt
  let pamtester: String
  let counts: BenchCounts

  private var secretFile: String { paths.work + "/secret.in" }

  func run(into report: inout Report) throws {
    try writeFile(secretFile, passcode + "\n")
    let security = paths.securityDir
    let common = "\(paths.module) conf=\(paths.conf)"
    let bio = try BenchState(
      root: paths.work + "/state-bio", user: user.name, modality: .touchID, items: ["right-index"], passcode: passcode, cost: cost)
    let pass = try BenchState(root: paths.work + "/state-pass", user: user.name, modality: .touchID, items: [], passcode: passcode, cost: cost)
    try paths.writeService("wp-permit", security + "/pam_permit.so")
    try paths.writeService("wp-bio", "\(common) state_dir=\(bio.root) timeout=2")
    try paths.writeService("wp-pass", "\(common) state_dir=\(pass.root) sensor=none")
    try paths.writeService("wp-unix", security + "/pam_unix.so")

    // The reboot rule asks for the passcode first in every boot: one passcode authentication, as a user would.
    let first = pamtester("wp-bio", stdin: secretFile)
    guard first.exitCode == 0 else { throw SetupError("The setup passcode authentication failed (exit \(first.exitCode); see \(paths.log)).") }

    report.figures.append(biometricAgainstPermit(bio))
    report.figures.append(try passcodeAgainstUnix(pass))
    report.figures.append(peakMemory(bio))
  }

  private func pamtester(_ service: String, stdin: String = "/dev/null") -> ProcessResult {
    Spawn.run([pamtester, service, user.name, "authenticate"], environment: paths.wrapperEnvironment, stdinPath: stdin, logPath: paths.log)
  }

  /// Queues one good touch of the enrolled finger with `localauthctl touch` (not timed).
  private func touch(_ state: BenchState) -> Bool {
    Spawn.setup([paths.ctl, "touch", user.name, "right-index", "--state-dir", state.root, "--quality", "0.9"], logPath: paths.log)
  }

  /// Runs `pairs` pairs (plus warm-up) of `subject` against `reference`, alternating which goes first.
  private func alternate(
    pairs: Int, warmUp: Int, before: () -> Bool, subject: () -> ProcessResult, reference: () -> ProcessResult,
    measure: (ProcessResult) -> Double = { $0.seconds }, onFailure: () -> Void = {}
  ) -> PairedSamples {
    var samples = PairedSamples()
    for i in 0..<(warmUp + pairs) {
      guard before() else {
        samples.failures += 1
        continue
      }
      let a: ProcessResult
      let b: ProcessResult
      if i % 2 == 0 {
        a = subject()
        b = reference()
      } else {
        b = reference()
        a = subject()
      }
      guard a.exitCode == 0, b.exitCode == 0 else {
        samples.failures += 1
        onFailure()
        continue
      }
      if i >= warmUp { samples.add(subject: measure(a), reference: measure(b)) }
    }
    return samples
  }

  private func biometricAgainstPermit(_ bio: BenchState) -> Figure {
    let samples = alternate(
      pairs: counts.wholeProcessPairs, warmUp: 3, before: { touch(bio) }, subject: { pamtester("wp-bio") },
      reference: { pamtester("wp-permit") }, onFailure: { bio.clearQueue() })
    let ours = Summary(samples.subject)
    let reference = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let extra = Summary(samples.differences)
    let met = ratio.map { $0.median <= 2.0 }
    return Figure(
      id: "1", name: "Whole process, biometric path vs pam_permit (pamtester + pam_wrapper)",
      ours: describe(ours, scale: 1e3, unit: "ms"), reference: describe(reference, scale: 1e3, unit: "ms"),
      comparison: describeRatio(ratio), target: "≤ 2.00×", verdict: verdict(met),
      meaning: "A fingerprint sudo spends \(extra.map { fixed($0.median * 1e3, 1) } ?? "n/a") ms more in PAM than a stack that checks nothing "
        + "(\(ours.map { fixed($0.median * 1e3, 1) } ?? "n/a") ms for the whole pamtester process, touch already on the sensor): invisible beside the second it takes to lift a finger.",
      json: .object([
        ("unit", .string("ms")), ("subject", ours?.json(scale: 1e3) ?? .null), ("reference", reference?.json(scale: 1e3) ?? .null),
        ("ratio", ratio?.json() ?? .null), ("difference_ms", extra?.json(scale: 1e3) ?? .null),
        ("failed_runs", .number(Double(samples.failures))), ("target_ratio", .number(2.0)),
      ]))
  }

  private func passcodeAgainstUnix(_ pass: BenchState) throws -> Figure {
    let shadow = hashSetting(user.shadowHash() ?? "")
    let ours = hashSetting(pass.passcodeHash())
    let samples = alternate(
      pairs: counts.passcodePairs, warmUp: 2, before: { true }, subject: { pamtester("wp-pass", stdin: secretFile) },
      reference: { pamtester("wp-unix", stdin: secretFile) })
    let a = Summary(samples.subject)
    let b = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let extra = Summary(samples.differences)
    let met = ratio.map { $0.median <= 1.05 }
    let same = shadow == ours
    return Figure(
      id: "2", name: "Whole process, passcode path vs pam_unix (yescrypt \(same ? ours : "\(ours) vs \(shadow)"))",
      ours: describe(a, scale: 1e3, unit: "ms"), reference: describe(b, scale: 1e3, unit: "ms"),
      comparison: describeRatio(ratio), target: "≤ 1.05×", verdict: verdict(met),
      meaning: "Checking the passcode takes as long as checking the Unix password with the same yescrypt cost "
        + "(\(a.map { fixed($0.median * 1e3, 0) } ?? "n/a") vs \(b.map { fixed($0.median * 1e3, 0) } ?? "n/a") ms, "
        + "\(extra.map { fixed($0.median * 1e3, 1) } ?? "n/a") ms apart, which includes writing the state file durably): the deliberate hash cost is all a user waits for.",
      json: .object([
        ("unit", .string("ms")), ("subject", a?.json(scale: 1e3) ?? .null), ("reference", b?.json(scale: 1e3) ?? .null),
        ("ratio", ratio?.json() ?? .null), ("difference_ms", extra?.json(scale: 1e3) ?? .null),
        ("failed_runs", .number(Double(samples.failures))), ("hash_setting_ours", .string(ours)),
        ("hash_setting_shadow", .string(shadow)), ("same_cost", .bool(same)), ("target_ratio", .number(1.05)),
      ]))
  }

  private func peakMemory(_ bio: BenchState) -> Figure {
    let output = paths.work + "/time.out"
    let timeTool = access("/usr/bin/time", X_OK) == 0 ? "/usr/bin/time" : nil
    func measured(_ service: String) -> ProcessResult {
      guard let timeTool else { return pamtester(service) }
      unlink(output)
      let r = Spawn.run(
        [timeTool, "-f", "%M", "-o", output, pamtester, service, user.name, "authenticate"], environment: paths.wrapperEnvironment,
        logPath: paths.log)
      let kib = readText(output).flatMap { Double($0.split(separator: "\n").last.map(String.init)?.trimmed() ?? "") } ?? 0
      return ProcessResult(seconds: r.seconds, exitCode: r.exitCode, maxResidentKiB: kib)
    }
    let samples = alternate(
      pairs: counts.memoryPairs, warmUp: 1, before: { touch(bio) }, subject: { measured("wp-bio") },
      reference: { measured("wp-permit") }, measure: { $0.maxResidentKiB }, onFailure: { bio.clearQueue() })
    let a = Summary(samples.subject)
    let b = Summary(samples.reference)
    let extra = Summary(samples.differences)
    let met = extra.map { $0.median <= 2048 }
    let mib = 1.0 / 1024
    return Figure(
      id: "3", name: "Peak resident memory of pamtester, biometric path vs pam_permit (\(timeTool == nil ? "wait4" : "/usr/bin/time -f %M"))",
      ours: describe(a, scale: mib, unit: "MiB"), reference: describe(b, scale: mib, unit: "MiB"),
      comparison: extra.map { "+" + fixed($0.median * mib, 2) + " MiB (" + fixed($0.p25 * mib, 2) + "–" + fixed($0.p75 * mib, 2) + ")" } ?? "n/a",
      target: "≤ +2 MiB", verdict: verdict(met),
      meaning: "Loading pam_localauth into sudo, login or a screen locker adds \(extra.map { fixed($0.median * mib, 1) } ?? "n/a") MiB "
        + "to that process's peak memory, for the length of one authentication.",
      json: .object([
        ("unit", .string("KiB")), ("subject", a?.json() ?? .null), ("reference", b?.json() ?? .null),
        ("difference_kib", extra?.json() ?? .null), ("failed_runs", .number(Double(samples.failures))),
        ("tool", .string(timeTool ?? "wait4")), ("target_difference_kib", .number(2048)),
      ]))
  }
}

/// "yes", "NO" or "—".
func verdict(_ met: Bool?) -> String {
  guard let met else { return "—" }
  return met ? "yes" : "NO"
}
