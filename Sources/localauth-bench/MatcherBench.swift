import LocalAuthCore

/// Item 5: the simulated matcher's speed and its error rates per modality, beside Apple's figures.
///
/// Impostors: every comparison scores a fresh impostor, a new vector of standard normal variates (the cosine score ignores
/// its length, and its direction is distributed exactly as another person's capture, since identities and sensor noise
/// are isotropic), against the next enrolled template in turn, so the comparisons are independent and a binomial interval is honest. Scoring one set of
/// impostor captures against every template would reuse each capture and each template thousands of times.
/// Speed: every impostor capture (typical quality) against every enrolled template.
/// Genuine: each enrolled template against fresh captures of the same finger or face at typical quality.
/// A comparison is SimulatedMatcher.score against MatcherCalibration.threshold, the rule decide() applies.
struct MatcherBench {
  let counts: BenchCounts

  func run(into report: inout Report) {
    var throughput: [Double] = []
    var rows: [Figure] = []
    var pooled = [Modality: Int]()
    var pooledComparisons = 0
    for modality in Modality.allCases {
      let (falseMatch, rejects, perSecond, crossCounts, comparisons) = measure(modality)
      throughput.append(perSecond)
      rows += [falseMatch, rejects]
      for (m, n) in crossCounts { pooled[m, default: 0] += n }
      pooledComparisons += comparisons
    }
    // Both modalities share one geometry, so every impostor score also tests the other modality's threshold.
    report.notes.append(
      "Calibration cross-check: the impostor scores of both modalities pooled (\(grouped(Int64(pooledComparisons))) comparisons) reach "
        + Modality.allCases.map { m in
          let expected = MatcherCalibration.impostorTail(MatcherCalibration.threshold(for: m)) * Double(pooledComparisons)
          return "the \(m == .touchID ? "Touch ID" : "Face ID") threshold \(pooled[m] ?? 0) times (expected \(fixed(expected, 0)))"
        }.joined(separator: " and ") + "; a single modality's count varies by about its square root around that.")
    let rate = throughput.min() ?? 0
    let fingers = Double(Modality.touchID.maximumEnrolled)
    report.figures.append(
      Figure(
        id: "5a", name: "Matcher speed (128-dimension cosine score vs threshold)",
        ours: fixed(rate / 1e6, 1) + " M comparisons/s", reference: "—", comparison: "—", target: "—", verdict: "—",
        meaning: "Matching one touch against all \(Int(fingers)) enrolled fingers takes \(fixed(fingers / rate * 1e9, 0)) ns: the matcher never makes a user wait.",
        json: .object([("comparisons_per_second", .array(throughput.map { .number($0.rounded()) }))])))
    report.figures += rows
  }

  private func measure(_ modality: Modality) -> (Figure, Figure, Double, [Modality: Int], Int) {
    let simulator = BiometricSimulator(worldSeed: 0xBE7C_4A11 &+ UInt64(modality.biometryTypeRawValue))
    var rng = SplitMix64(seed: 0x1234_5678 &+ UInt64(modality.biometryTypeRawValue))
    let enrolled = (0..<counts.matcherTemplates).map { i in
      simulator.enroll(owner: "enrolled\(i)", item: "item", modality: modality, at: .epoch, using: &rng)
    }
    let impostors = (0..<counts.matcherImpostors).map { j in
      simulator.capture(
        simulator.identity(owner: "impostor\(j)", item: "item", modality: modality), modality: modality,
        quality: BiometricSimulator.typicalQuality(using: &rng), using: &rng)
    }
    let threshold = MatcherCalibration.threshold(for: modality)
    let other = Modality.allCases.first { $0 != modality } ?? modality
    let otherThreshold = MatcherCalibration.threshold(for: other)
    var speedMatches = 0
    let start = monotonicSeconds()
    for sample in impostors {
      for template in enrolled where SimulatedMatcher.score(sample.features, template.features) >= threshold { speedMatches += 1 }
    }
    let perSecond = Double(impostors.count * enrolled.count) / (monotonicSeconds() - start)

    var normal = Ziggurat(seed: 0x5EED_F00D &+ UInt64(modality.biometryTypeRawValue))
    var fresh = [Float](repeating: 0, count: MatcherCalibration.dimension)
    var falseMatches = 0
    var otherMatches = 0
    let comparisons = counts.impostorComparisons
    let freshStart = monotonicSeconds()
    for k in 0..<comparisons {
      fresh.withUnsafeMutableBufferPointer { normal.fill($0) }
      let score = SimulatedMatcher.score(fresh, enrolled[k % enrolled.count].features)
      if score >= threshold { falseMatches += 1 }
      if score >= otherThreshold { otherMatches += 1 }
    }
    let freshSeconds = monotonicSeconds() - freshStart

    let matcher = SimulatedMatcher()
    var attempts = 0
    var rejected = 0
    var rejectedPartial = 0
    var prompts = 0
    var promptsFailed = 0
    let perPrompt = modality.failuresPerPrompt
    for (i, template) in enrolled.prefix(counts.genuineTemplates).enumerated() {
      let own = simulator.identity(owner: "enrolled\(i)", item: "item", modality: modality)
      let single = [template]
      var failedInPrompt = 0
      for k in 0..<counts.genuineCaptures {
        let sample = simulator.capture(own, modality: modality, quality: BiometricSimulator.typicalQuality(using: &rng), using: &rng)
        attempts += 1
        if case .match = matcher.decide(sample, against: single) {} else {
          rejected += 1
          failedInPrompt += 1
          if sample.quality < 0.5 { rejectedPartial += 1 }
        }
        if (k + 1) % perPrompt == 0 {
          prompts += 1
          if failedInPrompt == perPrompt { promptsFailed += 1 }
          failedInPrompt = 0
        }
      }
    }

    let apple = modality.publishedFalseMatchRate
    let fmr = Double(falseMatches) / Double(comparisons)
    let (low, high) = wilsonInterval(falseMatches, comparisons)
    let appleInside = apple >= low && apple <= high
    let name = modality == .touchID ? "Touch ID" : "Face ID"
    let falseMatch = Figure(
      id: modality == .touchID ? "5b" : "5c",
      name: "\(name) false-match rate over \(grouped(Int64(comparisons))) independent impostor comparisons",
      ours: "\(oneIn(fmr)) (\(falseMatches) match\(falseMatches == 1 ? "" : "es"); 95% CI \(oneIn(high))–\(oneIn(low)))",
      reference: "Apple: 1 in \(grouped(Int64((1 / apple).rounded())))",
      comparison: fixed(fmr / apple, 2) + "× Apple's rate", target: "Apple's rate inside the 95% CI", verdict: verdict(appleInside),
      meaning: "A stranger's \(modality.itemNoun) unlocks an account with one enrolled \(modality.itemNoun) \(oneIn(fmr)) tries "
        + "(Apple: 1 in \(grouped(Int64((1 / apple).rounded())))); each enrolled \(modality.itemNoun) adds the same chance again.",
      json: .object([
        ("comparisons", .number(Double(comparisons))), ("false_matches", .number(Double(falseMatches))), ("rate", .number(fmr)),
        ("ci95_low", .number(low)), ("ci95_high", .number(high)), ("apple_rate", .number(apple)),
        ("threshold", .number(threshold)), ("comparisons_per_second", .number(perSecond.rounded())),
        ("fresh_impostor_per_comparison", .bool(true)), ("templates", .number(Double(enrolled.count))),
        ("seconds", .number((freshSeconds * 10).rounded() / 10)), ("speed_loop_matches", .number(Double(speedMatches))),
      ]))
    let frr = Double(rejected) / Double(max(attempts, 1))
    let promptRate = Double(promptsFailed) / Double(max(prompts, 1))
    let (frrLow, frrHigh) = wilsonInterval(rejected, attempts)
    let rejects = Figure(
      id: modality == .touchID ? "5d" : "5e",
      name: "\(name) false-reject rate over \(grouped(Int64(attempts))) genuine comparisons (typical placements)",
      ours: "\(fixed(frr * 100, 2))% per attempt; \(fixed(promptRate * 100, 3))% per prompt of \(perPrompt)",
      reference: "Apple: not published", comparison: "—", target: "—", verdict: "—",
      meaning: "The owner's own \(modality.itemNoun) is refused \(fixed(frr * 100, 1))% of the time "
        + "(\(fixed(Double(rejectedPartial) / Double(max(rejected, 1)) * 100, 0))% of those refusals were partial placements, quality < 0.5); "
        + "a whole prompt (\(perPrompt) tries) fails for \(fixed(promptRate * 100, 2))% of unlocks.",
      json: .object([
        ("attempts", .number(Double(attempts))), ("rejected", .number(Double(rejected))), ("rate", .number(frr)),
        ("ci95_low", .number(frrLow)), ("ci95_high", .number(frrHigh)), ("attempts_per_prompt", .number(Double(perPrompt))),
        ("prompts", .number(Double(prompts))), ("prompts_failed", .number(Double(promptsFailed))),
        ("rejected_partial_placements", .number(Double(rejectedPartial))), ("prompt_rate", .number(promptRate)),
      ]))
    return (falseMatch, rejects, perSecond, [modality: falseMatches, other: otherMatches], comparisons)
  }
}

/// "1 in 48,300" for a probability; "0 in n" reads as "none".
func oneIn(_ p: Double) -> String {
  guard p > 0 else { return "none" }
  let n = 1 / p
  if n >= 1000 { return "1 in " + grouped(Int64((n / 100).rounded() * 100)) }
  return "1 in " + significant(n)
}
