#if canImport(Glibc)
import Glibc
#endif

/// Items 1 and 3: whole `pamtester SERVICE USER authenticate` processes through pam_wrapper, the biometric
/// path against pam_permit.so, with a third run that only loads the module, to show where the cost is.
/// Item 2 (the passcode path) is in PasscodeBench.
struct WholeProcessBench {
  let paths: BenchPaths
  let user: BenchUser
  let passcode: String
  let cost: UInt
  let pamtester: String
  let counts: BenchCounts

  var secretFile: String { paths.work + "/secret.in" }

  func run(into report: inout Report) throws {
    try writeFile(secretFile, passcode + "\n")
    let permit = paths.securityDir + "/pam_permit.so"
    let bio = try BenchState(
      root: paths.work + "/state-bio", runtime: paths.runtimeFolder("bio"), user: user.name, modality: .touchID, items: ["right-index"], passcode: passcode, cost: cost)
    let module = "\(paths.module) conf=\(paths.conf) \(bio.folderArguments) timeout=2"
    try paths.writeService("wp-permit", permit)
    try paths.writeService("wp-bio", module)
    // pam_permit answers first, so pam_localauth is loaded (dlopen and relocation) but never called.
    try paths.writeStack("wp-load", ["sufficient " + permit, "required " + module])

    // The same path with the state folder on tmpfs, where the record's fsyncs cost nothing: the disk's share.
    let memory = try paths.memoryWork.map { folder in
      try BenchState(root: folder + "/state-bio", user: user.name, modality: .touchID, items: ["right-index"], passcode: passcode, cost: cost)
    }
    if let memory { try paths.writeService("wp-bio-tmpfs", "\(paths.module) conf=\(paths.conf) state_dir=\(memory.root) timeout=2") }
    // The one-module alternative (OneModuleFigures.swift): the same path, its own state and runtime folders.
    let one = try paths.oneModule.map { library in
      let state = try BenchState(
        root: paths.work + "/state-one", runtime: paths.runtimeFolder("one"), user: user.name, modality: .touchID, items: ["right-index"],
        passcode: passcode, cost: cost)
      try paths.writeService("wp-one", "\(library) conf=\(paths.conf) \(state.folderArguments) timeout=2")
      return state
    }

    // The reboot rule asks for the passcode first in every boot: one passcode authentication, as a user would.
    for service in ["wp-bio"] + (memory == nil ? [] : ["wp-bio-tmpfs"]) + (one == nil ? [] : ["wp-one"]) {
      let first = pamtester(service, stdin: secretFile)
      guard first.exitCode == 0 else { throw SetupError("The setup passcode authentication failed (exit \(first.exitCode); see \(paths.log)).") }
    }

    var runs = [{ pamtester("wp-bio") }, { pamtester("wp-permit") }, { pamtester("wp-load") }]
    if memory != nil { runs.append({ pamtester("wp-bio-tmpfs") }) }
    // The floor: what a minimal Swift PAM module, linked the same way, costs (Sources/BenchFloorModule).
    if let floor = paths.floorModule { try paths.writeService("wp-floor", "\(floor) conf=\(paths.conf)") }
    let floorColumn = paths.floorModule == nil ? nil : runs.count
    if floorColumn != nil { runs.append({ pamtester("wp-floor") }) }
    let oneColumn = one == nil ? nil : runs.count
    if oneColumn != nil { runs.append({ pamtester("wp-one") }) }
    let timing = rotate(
      rounds: counts.wholeProcessPairs, warmUp: 3,
      before: { touch(bio) && (memory.map { touch($0) } ?? true) && (one.map { touch($0) } ?? true) }, runs: runs,
      onFailure: {
        bio.clearQueue()
        memory?.clearQueue()
        one?.clearQueue()
      })
    report.figures.append(biometricFigure(timing))
    report.figures.append(loadFigure(timing))
    if memory != nil { report.figures.append(memoryStateFigure(timing)) }
    if let floorColumn { report.figures.append(floorFigure(timing, column: floorColumn)) }
    if let oneColumn { report.figures.append(oneModuleTimeFigure(timing, column: oneColumn)) }
    try PasscodeBench(whole: self).run(into: &report)
    report.figures.append(contentsOf: memoryFigures(bio, one: one))
  }

  func pamtester(_ service: String, stdin: String = "/dev/null") -> ProcessResult {
    Spawn.run([pamtester, service, user.name, "authenticate"], environment: paths.wrapperEnvironment, stdinPath: stdin, logPath: paths.log)
  }

  /// A touch of the enrolled finger for the next run's prompt, presented from a thread of the bench when the
  /// prompt appears (as `localauthctl touch --wait` would), so that the run pays for waiting on a real prompt.
  private func touch(_ state: BenchState) -> Bool {
    (try? state.enqueueTouch(item: "right-index", quality: 0.9)) != nil
  }

  /// The measurements of one rotation: one column per command, one row per round where every run succeeded.
  struct Rounds {
    /// columns[k][i]: command k's measurement in round i.
    var columns: [[Double]]
    /// Rounds dropped because a run failed.
    var failures = 0

    /// Command `k` compared with command `reference`, pair by pair.
    func pairs(_ k: Int, against reference: Int) -> PairedSamples {
      var samples = PairedSamples()
      for (a, b) in zip(columns[k], columns[reference]) { samples.add(subject: a, reference: b) }
      samples.failures = failures
      return samples
    }
  }

  /// Runs every command once per round, rotating which goes first (A B C, B C A, …), after `warmUp` rounds.
  func rotate(
    rounds: Int, warmUp: Int, before: () -> Bool, runs: [() -> ProcessResult],
    measure: (ProcessResult) -> Double = { $0.seconds }, onFailure: () -> Void = {}
  ) -> Rounds {
    var result = Rounds(columns: Array(repeating: [], count: runs.count))
    for round in 0..<(warmUp + rounds) {
      guard before() else {
        result.failures += 1
        continue
      }
      var values = [Double](repeating: 0, count: runs.count)
      var ok = true
      for step in 0..<runs.count {
        let k = (round + step) % runs.count
        let r = runs[k]()
        if r.exitCode != 0 { ok = false }
        values[k] = measure(r)
      }
      guard ok else {
        result.failures += 1
        onFailure()
        continue
      }
      if round >= warmUp { for k in 0..<runs.count { result.columns[k].append(values[k]) } }
    }
    return result
  }

  private func biometricFigure(_ timing: Rounds) -> Figure {
    let samples = timing.pairs(0, against: 1)
    let ours = Summary(samples.subject)
    let reference = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let extra = Summary(samples.differences)
    let met = ratio.map { $0.median <= 1.5 }
    return Figure(
      id: "1", name: "Whole process, biometric path vs pam_permit (pamtester + pam_wrapper)",
      ours: describe(ours, scale: 1e3, unit: "ms"), reference: describe(reference, scale: 1e3, unit: "ms"),
      comparison: describeRatio(ratio), target: "≤ 1.50×", verdict: verdict(met),
      meaning: "A fingerprint sudo spends \(extra.map { fixed($0.median * 1e3, 1) } ?? "n/a") ms more in PAM than a stack that checks nothing "
        + "(\(ours.map { fixed($0.median * 1e3, 1) } ?? "n/a") ms for the whole pamtester process, the touch presented to its waiting prompt): invisible beside the second it takes to lift a finger.",
      json: .object([
        ("unit", .string("ms")), ("subject", ours?.json(scale: 1e3) ?? .null), ("reference", reference?.json(scale: 1e3) ?? .null),
        ("ratio", ratio?.json() ?? .null), ("difference_ms", extra?.json(scale: 1e3) ?? .null),
        ("failed_rounds", .number(Double(samples.failures))), ("target_ratio", .number(1.5)),
      ]))
  }

  private func loadFigure(_ timing: Rounds) -> Figure {
    let load = timing.pairs(2, against: 1)
    let work = timing.pairs(0, against: 2)
    let ours = Summary(load.subject)
    let reference = Summary(load.reference)
    let ratio = Summary(load.ratios)
    let loadCost = Summary(load.differences)
    let workCost = Summary(work.differences)
    return Figure(
      id: "1b", name: "Whole process, pam_localauth loaded but not called (pam_permit sufficient first) vs pam_permit",
      ours: describe(ours, scale: 1e3, unit: "ms"), reference: describe(reference, scale: 1e3, unit: "ms"),
      comparison: describeRatio(ratio), target: "—", verdict: "—",
      meaning: "Of figure 1's extra time, \(loadCost.map { fixed($0.median * 1e3, 1) } ?? "n/a") ms is loading the module (Embedded Swift: no runtime to start), "
        + "\(workCost.map { fixed($0.median * 1e3, 1) } ?? "n/a") ms the authentication itself (reading the state, taking the touch, matching, writing the record).",
      json: .object([
        ("unit", .string("ms")), ("subject", ours?.json(scale: 1e3) ?? .null), ("reference", reference?.json(scale: 1e3) ?? .null),
        ("ratio", ratio?.json() ?? .null), ("load_ms", loadCost?.json(scale: 1e3) ?? .null),
        ("authentication_ms", workCost?.json(scale: 1e3) ?? .null),
      ]))
  }

  private func memoryStateFigure(_ timing: Rounds) -> Figure {
    let samples = timing.pairs(3, against: 1)
    let ours = Summary(samples.subject)
    let reference = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let disk = Summary(timing.pairs(0, against: 3).differences)
    return Figure(
      id: "1c", name: "Whole process, biometric path with the state folder on tmpfs (no disk flush) vs pam_permit",
      ours: describe(ours, scale: 1e3, unit: "ms"), reference: describe(reference, scale: 1e3, unit: "ms"),
      comparison: describeRatio(ratio), target: "≤ 1.20×", verdict: verdict(ratio.map { $0.median <= 1.2 }),
      meaning: "The disk's share (the record's fsync and rename, the prompt's folder and the consumed touch) accounts for "
        + "\(disk.map { fixed($0.median * 1e3, 1) } ?? "n/a") ms of figure 1 on this machine; without it a fingerprint sudo costs \(ratio.map { fixed($0.median, 2) } ?? "n/a")× pam_permit.",
      json: .object([
        ("unit", .string("ms")), ("subject", ours?.json(scale: 1e3) ?? .null), ("reference", reference?.json(scale: 1e3) ?? .null),
        ("ratio", ratio?.json() ?? .null), ("disk_flush_ms", disk?.json(scale: 1e3) ?? .null),
      ]))
  }

  private func floorFigure(_ timing: Rounds, column: Int) -> Figure {
    let samples = timing.pairs(column, against: 1)
    let ours = Summary(samples.subject)
    let reference = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let beyond = Summary(timing.pairs(0, against: column).ratios)
    return Figure(
      id: "1d", name: "Whole process, the floor: a minimal Swift PAM module linked the same way (reads its user, arguments and a file) vs pam_permit",
      ours: describe(ours, scale: 1e3, unit: "ms"), reference: describe(reference, scale: 1e3, unit: "ms"),
      comparison: describeRatio(ratio), target: "—", verdict: "—",
      meaning: "A PAM module in Swift that does next to nothing costs \(ratio.map { fixed($0.median, 2) } ?? "n/a")× pam_permit "
        + "(loading a small Embedded Swift library); pam_localauth's fingerprint path costs "
        + "\(beyond.map { fixed($0.median, 2) } ?? "n/a")× that floor.",
      json: .object([
        ("unit", .string("ms")), ("subject", ours?.json(scale: 1e3) ?? .null), ("reference", reference?.json(scale: 1e3) ?? .null),
        ("ratio", ratio?.json() ?? .null), ("biometric_over_floor", beyond?.json() ?? .null),
      ]))
  }

  private func memoryFigures(_ bio: BenchState, one: BenchState?) -> [Figure] {
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
    // As after a reboot: the first run reads the files in, as the kernel's own read-ahead lays them out.
    sync()
    let libraries = [paths.module, paths.securityDir + "/pam_permit.so"] + (paths.floorModule.map { [$0] } ?? [])
    for file in libraries + (one == nil ? [] : paths.oneModule.map { [$0] } ?? []) { dropFromPageCache(file) }
    var runs = [{ measured("wp-bio") }, { measured("wp-permit") }, { measured("wp-load") }]
    let floorColumn = paths.floorModule == nil ? nil : runs.count
    if floorColumn != nil { runs.append({ measured("wp-floor") }) }
    let oneColumn = one == nil ? nil : runs.count
    if oneColumn != nil { runs.append({ measured("wp-one") }) }
    let rounds = rotate(
      rounds: counts.memoryPairs, warmUp: 1, before: { touch(bio) && (one.map { touch($0) } ?? true) }, runs: runs,
      measure: { $0.maxResidentKiB },
      onFailure: {
        bio.clearQueue()
        one?.clearQueue()
      })
    let oneFigures = oneColumn.map { [oneModuleMemoryFigure(rounds, column: $0)] } ?? []
    let samples = rounds.pairs(0, against: 1)
    let a = Summary(samples.subject)
    let b = Summary(samples.reference)
    let extra = Summary(samples.differences)
    let loadOnly = Summary(rounds.pairs(2, against: 1).differences)
    let met = extra.map { $0.median <= 512 }
    let mib = 1.0 / 1024
    let figure = Figure(
      id: "3", name: "Peak resident memory of pamtester, biometric path vs pam_permit (\(timeTool == nil ? "wait4" : "/usr/bin/time -f %M"))",
      ours: describe(a, scale: mib, unit: "MiB"), reference: describe(b, scale: mib, unit: "MiB"),
      comparison: extra.map { "+" + fixed($0.median * mib, 2) + " MiB (" + fixed($0.p25 * mib, 2) + "–" + fixed($0.p75 * mib, 2) + ")" } ?? "n/a",
      target: "≤ +0.5 MiB", verdict: verdict(met),
      meaning: "Loading pam_localauth into sudo, login or a screen locker adds \(extra.map { fixed($0.median * mib, 1) } ?? "n/a") MiB "
        + "to that process's peak memory (\(loadOnly.map { fixed($0.median * mib, 1) } ?? "n/a") MiB of it just by being loaded: the module's own code and data pages).",
      json: .object([
        ("unit", .string("KiB")), ("subject", a?.json() ?? .null), ("reference", b?.json() ?? .null),
        ("difference_kib", extra?.json() ?? .null), ("load_only_difference_kib", loadOnly?.json() ?? .null),
        ("failed_rounds", .number(Double(samples.failures))), ("tool", .string(timeTool ?? "wait4")),
        ("target_difference_kib", .number(512)),
      ]))
    guard let floorColumn else { return [figure] + oneFigures }
    let floorSamples = rounds.pairs(floorColumn, against: 1)
    let floor = Summary(floorSamples.subject)
    let floorExtra = Summary(floorSamples.differences)
    let beyond = Summary(rounds.pairs(0, against: floorColumn).differences)
    return [
      figure,
      Figure(
        id: "3b", name: "Peak resident memory, the floor: a minimal Swift PAM module linked the same way vs pam_permit",
        ours: describe(floor, scale: mib, unit: "MiB"), reference: describe(b, scale: mib, unit: "MiB"),
        comparison: floorExtra.map { "+" + fixed($0.median * mib, 2) + " MiB (" + fixed($0.p25 * mib, 2) + "–" + fixed($0.p75 * mib, 2) + ")" } ?? "n/a",
        target: "—", verdict: "—",
        meaning: "A PAM module in Swift that only reads its user, its arguments and one small file already adds "
          + "\(floorExtra.map { fixed($0.median * mib, 2) } ?? "n/a") MiB (its code pages and the standard library code it carries); "
          + "pam_localauth adds \(beyond.map { fixed($0.median * mib, 2) } ?? "n/a") MiB more than that floor.",
        json: .object([
          ("unit", .string("KiB")), ("subject", floor?.json() ?? .null), ("reference", b?.json() ?? .null),
          ("difference_kib", floorExtra?.json() ?? .null), ("localauth_over_floor_kib", beyond?.json() ?? .null),
        ])),
    ] + oneFigures
  }
}

/// "yes", "NO" or "—".
func verdict(_ met: Bool?) -> String {
  guard let met else { return "—" }
  return met ? "yes" : "NO"
}
