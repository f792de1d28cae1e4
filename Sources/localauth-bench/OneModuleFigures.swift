/// Issue 40, item 4: the installed module is split in two (pam_localauth.so built with `LOCALAUTH_HOT_MODULE`, and
/// pam_localauth/extra.so opened on first use; docs/EMBEDDED.md), which is worth keeping only if one library with
/// every part cannot meet figures 1 and 3. build/one-module/pam_localauth.so (`make bench`, never installed) is
/// that library, linked like the module; it runs in the same rounds as the split module and pam_permit, with a
/// state folder of its own, and these figures set the two side by side.
extension WholeProcessBench {
  /// Figure 1e: the one-module library's simulated-finger run against pam_permit, beside figure 1's split module.
  func oneModuleTimeFigure(_ timing: Rounds, column: Int) -> Figure {
    let samples = timing.pairs(column, against: 1)
    let ours = Summary(samples.subject)
    let reference = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let split = Summary(timing.pairs(0, against: 1).ratios)
    let overSplit = Summary(timing.pairs(column, against: 0).differences)
    let met = ratio.map { $0.median <= 1.5 }
    let ms = { (s: Summary?) in s.map { fixed($0.median * 1e3, 2) } ?? "n/a" }
    let times = { (s: Summary?) in s.map { fixed($0.median, 2) + "×" } ?? "n/a" }
    return Figure(
      id: "1e", name: "Whole process, biometric path with one module (no extra.so: every part in pam_localauth.so) vs pam_permit",
      ours: describe(ours, scale: 1e3, unit: "ms"), reference: describe(reference, scale: 1e3, unit: "ms"),
      comparison: describeRatio(ratio), target: "≤ 1.50×", verdict: verdict(met),
      meaning: "Decides whether the module needs its split (issue 40, item 4): one library with every part costs \(times(ratio)) "
        + "pam_permit where the installed split module costs \(times(split)) (figure 1, same rounds), \(ms(overSplit)) ms more per "
        + "run than the split; the split is kept only if this misses ≤ 1.50× (or figure 3d its memory target) where the split meets it.",
      json: .object([
        ("unit", .string("ms")), ("subject", ours?.json(scale: 1e3) ?? .null), ("reference", reference?.json(scale: 1e3) ?? .null),
        ("ratio", ratio?.json() ?? .null), ("split_module_ratio", split?.json() ?? .null),
        ("over_split_module_ms", overSplit?.json(scale: 1e3) ?? .null),
        ("failed_rounds", .number(Double(samples.failures))), ("target_ratio", .number(1.5)),
      ]))
  }

  /// Figure 3d: the one-module library's peak resident memory against pam_permit, beside figure 3's split module.
  func oneModuleMemoryFigure(_ rounds: Rounds, column: Int) -> Figure {
    let samples = rounds.pairs(column, against: 1)
    let ours = Summary(samples.subject)
    let reference = Summary(samples.reference)
    let extra = Summary(samples.differences)
    let split = Summary(rounds.pairs(0, against: 1).differences)
    let overSplit = Summary(rounds.pairs(column, against: 0).differences)
    let mib = 1.0 / 1024
    let plus = { (s: Summary?) in s.map { "+" + fixed($0.median * mib, 2) + " MiB" } ?? "n/a" }
    return Figure(
      id: "3d", name: "Peak resident memory of pamtester, biometric path with one module (no extra.so) vs pam_permit",
      ours: describe(ours, scale: mib, unit: "MiB"), reference: describe(reference, scale: mib, unit: "MiB"),
      comparison: extra.map { "+" + fixed($0.median * mib, 2) + " MiB (" + fixed($0.p25 * mib, 2) + "–" + fixed($0.p75 * mib, 2) + ")" } ?? "n/a",
      target: "≤ +0.5 MiB", verdict: verdict(extra.map { $0.median <= 512 }),
      meaning: "Decides, with figure 1e, whether the module needs its split (issue 40, item 4): one library with every part adds "
        + "\(plus(extra)) to a simulated-finger pamtester's peak where the installed split module adds \(plus(split)) (figure 3, "
        + "same rounds), \(overSplit.map { fixed($0.median * mib, 2) } ?? "n/a") MiB more than the split.",
      json: .object([
        ("unit", .string("KiB")), ("subject", ours?.json() ?? .null), ("reference", reference?.json() ?? .null),
        ("difference_kib", extra?.json() ?? .null), ("split_module_difference_kib", split?.json() ?? .null),
        ("over_split_module_kib", overSplit?.json() ?? .null), ("failed_rounds", .number(Double(samples.failures))),
        ("target_difference_kib", .number(512)),
      ]))
  }
}
