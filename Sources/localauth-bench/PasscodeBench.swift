import LocalAuthCore

/// Item 2: the passcode path against pam_unix.so for a user whose /etc/shadow hash is yescrypt at the same
/// cost, whole process. Each round also runs pam_permit and times one yescrypt verification in this process,
/// so that the figure can be read against "one hash and nothing else" as well as against pam_unix.
struct PasscodeBench {
  let whole: WholeProcessBench

  func run(into report: inout Report) throws {
    let paths = whole.paths
    let pass = try BenchState(
      root: paths.work + "/state-pass", user: whole.user.name, modality: .touchID, items: [], passcode: whole.passcode, cost: whole.cost)
    try paths.writeService("wp-pass", "\(paths.module) conf=\(paths.conf) state_dir=\(pass.root) sensor=none")
    try paths.writeService("wp-unix", paths.securityDir + "/pam_unix.so")
    let stored = pass.passcodeHash()
    let shadow = hashSetting(whole.user.shadowHash() ?? "")
    let ours = hashSetting(stored)
    let hasher = PasscodeHasher(cost: whole.cost)
    let secret = SecretBytes(whole.passcode)
    let hashOnce = {
      let start = monotonicSeconds()
      let ok = (try? hasher.verify(secret, against: stored)) == true
      return ProcessResult(seconds: monotonicSeconds() - start, exitCode: ok ? 0 : 1, maxResidentKiB: 0)
    }
    let rounds = whole.rotate(
      rounds: whole.counts.passcodePairs, warmUp: 2, before: { true },
      runs: [
        { whole.pamtester("wp-pass", stdin: whole.secretFile) }, { whole.pamtester("wp-unix", stdin: whole.secretFile) },
        { whole.pamtester("wp-permit") }, hashOnce,
      ])
    let samples = rounds.pairs(0, against: 1)
    let a = Summary(samples.subject)
    let b = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let extra = Summary(samples.differences)
    let same = shadow == ours
    // Per round: the module against "pam_permit plus one hash", and pam_unix's extra time counted in hashes.
    let ideal = zip(rounds.columns[2], rounds.columns[3]).map { $0 + $1 }
    let againstIdeal = Summary(zip(rounds.columns[0], ideal).map { $0 / $1 })
    let idealSummary = Summary(ideal)
    let unixHashes = Summary(zip(zip(rounds.columns[1], rounds.columns[2]), rounds.columns[3]).map { ($0.0 - $0.1) / $1 })
    let oursHashes = Summary(zip(zip(rounds.columns[0], rounds.columns[2]), rounds.columns[3]).map { ($0.0 - $0.1) / $1 })
    let hash = Summary(rounds.columns[3])
    let ms = { (s: Summary?) in s.map { fixed($0.median * 1e3, 1) } ?? "n/a" }

    report.figures.append(
      Figure(
        id: "2", name: "Whole process, passcode path vs pam_unix (both yescrypt \(same ? ours : "\(ours) vs \(shadow)"))",
        ours: describe(a, scale: 1e3, unit: "ms"), reference: describe(b, scale: 1e3, unit: "ms"),
        comparison: describeRatio(ratio), target: "≤ 1.05×", verdict: verdict(ratio.map { $0.median <= 1.05 }),
        meaning: "Checking the passcode takes no longer than checking the Unix password at the same yescrypt cost "
          + "(\(ms(a)) vs \(ms(b)) ms): the deliberate hash cost is all a user waits for. (Debian 12's pam_unix computes the hash twice on success, "
          + "\(unixHashes.map { fixed($0.median, 1) } ?? "n/a") hash times above pam_permit; pam_localauth computes it once.)",
        json: .object([
          ("unit", .string("ms")), ("subject", a?.json(scale: 1e3) ?? .null), ("reference", b?.json(scale: 1e3) ?? .null),
          ("ratio", ratio?.json() ?? .null), ("difference_ms", extra?.json(scale: 1e3) ?? .null),
          ("failed_rounds", .number(Double(rounds.failures))), ("hash_setting_ours", .string(ours)),
          ("hash_setting_shadow", .string(shadow)), ("same_cost", .bool(same)), ("target_ratio", .number(1.05)),
          ("pam_unix_hash_times_above_permit", unixHashes?.json() ?? .null),
          ("ours_hash_times_above_permit", oursHashes?.json() ?? .null),
        ])))
    report.figures.append(
      Figure(
        id: "2b", name: "Whole process, passcode path vs pam_permit + one yescrypt verification (timed in-process, same round)",
        ours: describe(a, scale: 1e3, unit: "ms"), reference: describe(idealSummary, scale: 1e3, unit: "ms"),
        comparison: describeRatio(againstIdeal), target: "—", verdict: "—",
        meaning: "Against a module that would only load, hash once (\(ms(hash)) ms) and answer, the passcode path costs "
          + "\(againstIdeal.map { fixed($0.median, 2) } ?? "n/a")×: the rest is loading the module, reading the state and the durable write of the user's record.",
        json: .object([
          ("unit", .string("ms")), ("subject", a?.json(scale: 1e3) ?? .null), ("reference", idealSummary?.json(scale: 1e3) ?? .null),
          ("ratio", againstIdeal?.json() ?? .null), ("hash_ms", hash?.json(scale: 1e3) ?? .null),
        ])))
  }
}
