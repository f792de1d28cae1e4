import LocalAuthCore

/// Item 6: how the biometric path's cost grows with enrolled items and with the number of other users in
/// the state folder. One process, a real touch presented to each cycle's prompt from another thread; configurations take
/// turns round by round (rotating which goes first) and each is compared with the baseline of the same round.
struct ScalingBench {
  let paths: BenchPaths
  let user: BenchUser
  let passcode: String
  let cost: UInt
  let counts: BenchCounts

  /// One configuration: a state folder and its service.
  private struct Case {
    let key: String
    let label: String
    let state: BenchState
    var times: [Double] = []
  }

  func run(into report: inout Report) throws {
    try measure(storage: "disk", base: paths.work, ids: ["6a", "6b", "6c", "6d"], into: &report)
    if let memory = paths.memoryWork {
      try measure(storage: "tmpfs", base: memory, ids: ["6e", "6f", "6g", "6h"], into: &report)
    }
  }

  /// Measures every configuration with its state folders under `base` (on `storage`).
  private func measure(storage: String, base: String, ids: [String], into report: inout Report) throws {
    let fingers = ["right-index", "right-thumb", "left-index", "left-thumb", "right-middle"]
    let setups: [(String, String, Modality, [String], Int)] = [
      ("one", "Touch ID, 1 finger, 1 user", .touchID, ["right-index"], 0),
      ("five", "Touch ID, 5 fingers (touching the 5th)", .touchID, fingers, 0),
      ("face", "Face ID, 2 appearances (the 2nd)", .faceID, ["face", "glasses"], 0),
      ("k1", "1,000 users in the state folder", .touchID, ["right-index"], 999),
      ("crowd", "\(grouped(Int64(counts.crowd))) users in the state folder", .touchID, ["right-index"], counts.crowd - 1),
    ]
    let driver = PAMDriver(confdir: paths.services.path, user: user.name, secret: passcode)
    var cases: [Case] = []
    var populateSeconds = 0.0
    for (key, label, modality, items, others) in setups {
      // On disk the prompts wait on tmpfs, as in /run/localauth; on tmpfs they stay beside the state.
      let state = try BenchState(
        root: base + "/state-\(key)", runtime: storage == "disk" ? paths.runtimeFolder("scale-" + key) : nil, user: user.name, modality: modality, items: items, passcode: passcode, cost: cost)
      let start = monotonicSeconds()
      try state.populateOthers(others)
      populateSeconds += monotonicSeconds() - start
      let sensor = modality == .faceID ? "faceid" : "touchid"
      try paths.writeService("sc-\(storage)-\(key)", "\(paths.module) conf=\(paths.conf) \(state.folderArguments) sensor=\(sensor) timeout=1")
      // The reboot rule: one passcode authentication first (biometry is not offered yet).
      let code = driver.cycle(service: "sc-\(storage)-\(key)")
      guard code == PAMDriver.success else { throw SetupError("The passcode setup for \(label) failed: \(PAMDriver.describe(code)).") }
      cases.append(Case(key: key, label: label, state: state))
    }

    var failures = 0
    for round in 0..<(counts.scalingRounds + 5) {
      for offset in 0..<cases.count {
        let index = (round + offset) % cases.count
        try cases[index].state.enqueueTouch()
        let start = monotonicSeconds()
        let code = driver.cycle(service: "sc-\(storage)-\(cases[index].key)")
        let elapsed = monotonicSeconds() - start
        if code != PAMDriver.success {
          failures += 1
          cases[index].state.clearQueue()
          cases[index].times.append(.nan)
        } else {
          cases[index].times.append(elapsed)
        }
      }
    }
    // Drop the warm-up rounds, and any round where either side failed.
    let baseline = Array(cases[0].times.dropFirst(5))
    let base = Summary(baseline.filter { !$0.isNaN })
    var rows: [Figure] = []
    for (n, c) in cases.enumerated().dropFirst() {
      let times = Array(c.times.dropFirst(5))
      let ratios = zip(times, baseline).compactMap { a, b in a.isNaN || b.isNaN ? nil : a / b }
      let ours = Summary(times.filter { !$0.isNaN })
      let ratio = Summary(ratios)
      let isUsers = c.key == "k1" || c.key == "crowd"
      let met: Bool? = isUsers ? ratio.map { $0.median <= 1.10 } : nil
      let meaning: String
      switch c.key {
      case "five":
        let more = zip(times, baseline).compactMap { a, b in a.isNaN || b.isNaN ? nil : a - b }
        meaning = "Enrolling all five fingers makes each touch \(ratio.map { fixed($0.median, 2) } ?? "n/a")× the cost of one finger "
          + "(\(Summary(more).map { fixed($0.median * 1e3, 2) } ?? "n/a") ms more: five templates to decode from the record and match)."
      case "face": meaning = "Face ID with two appearances costs \(ratio.map { fixed($0.median, 2) } ?? "n/a")× Touch ID with one finger per unlock."
      default: meaning = "With \(c.label.split(separator: " ").first ?? "") users sharing the machine, an unlock costs \(ratio.map { fixed($0.median, 2) } ?? "n/a")× what it costs alone: each user's record is read by name, never by listing the folder."
      }
      rows.append(
        Figure(
          id: ids[n - 1], name: "Biometric path (real touch, in-process, state on \(storage)): \(c.label) vs \(cases[0].label)",
          ours: describe(ours, scale: 1e3, unit: "ms"), reference: describe(base, scale: 1e3, unit: "ms"),
          comparison: describeRatio(ratio), target: isUsers ? "no growth (≤ 1.10×)" : "—", verdict: verdict(met),
          meaning: meaning,
          json: .object([
            ("unit", .string("ms")), ("storage", .string(storage)), ("configuration", .string(c.label)), ("baseline", .string(cases[0].label)),
            ("subject", ours?.json(scale: 1e3) ?? .null), ("reference", base?.json(scale: 1e3) ?? .null), ("ratio", ratio?.json() ?? .null),
          ])))
    }
    report.figures += rows
    report.notes.append(
      "Item 6 (state on \(storage)) wrote \(grouped(Int64(999 + counts.crowd - 1))) other users' records straight into the state folders with StateCodec "
        + "in \(fixed(populateSeconds, 1)) s; \(counts.scalingRounds) rounds per configuration, \(failures) failed cycles.")
  }
}
