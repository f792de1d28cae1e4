/// How many repetitions each figure takes: the full run fits in about 10 minutes on 2 shared cores.
struct BenchCounts {
  /// Item 1: pamtester pairs, biometric path vs pam_permit.
  var wholeProcessPairs: Int
  /// Item 2: pamtester pairs, passcode vs pam_unix.
  var passcodePairs: Int
  /// Item 3: /usr/bin/time pairs for peak memory.
  var memoryPairs: Int
  /// Item 4a: in-process cycles per side.
  var loopCycles: Int
  /// Item 4a: cycles per alternating block.
  var loopBlock: Int
  /// Item 4b: in-process cycles with a real touch, per side.
  var touchCycles: Int
  /// Item 5: enrolled templates per modality.
  var matcherTemplates: Int
  /// Item 5: impostor captures per modality, each scored against every template to time the matcher.
  var matcherImpostors: Int
  /// Item 5: false-match trials per modality, each a fresh impostor against one template.
  var impostorComparisons: Int
  /// Item 5: templates tested with genuine captures.
  var genuineTemplates: Int
  /// Item 5: genuine captures per template.
  var genuineCaptures: Int
  /// Item 6: rounds per configuration.
  var scalingRounds: Int
  /// Item 6: users in the crowded state folder.
  var crowd: Int
  /// Item 11: items in the large keychain (the small one has 10).
  var keychainItems: Int = 10_000
  /// Item 11: rounds per keychain.
  var keychainRounds: Int = 200
  /// Item 11d: rounds of one la-app read and one secret-tool lookup.
  var keychainProcessPairs: Int = 100

  /// `make bench`.
  static let full = BenchCounts(
    wholeProcessPairs: 150, passcodePairs: 60, memoryPairs: 20, loopCycles: 100_000, loopBlock: 1_000, touchCycles: 2_000,
    matcherTemplates: 1_000, matcherImpostors: 10_000, impostorComparisons: 100_000_000, genuineTemplates: 1_000, genuineCaptures: 102, scalingRounds: 300,
    crowd: 100_000)

  /// `make bench BENCH_QUICK=1`: a smoke run; figures are rough.
  static let quick = BenchCounts(
    wholeProcessPairs: 10, passcodePairs: 6, memoryPairs: 3, loopCycles: 10_000, loopBlock: 500, touchCycles: 200,
    matcherTemplates: 200, matcherImpostors: 2_000, impostorComparisons: 10_000_000, genuineTemplates: 200, genuineCaptures: 30, scalingRounds: 20,
    crowd: 10_000, keychainItems: 10_000, keychainRounds: 20, keychainProcessPairs: 10)
}
