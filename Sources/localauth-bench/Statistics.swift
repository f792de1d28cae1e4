#if canImport(Glibc)
import Glibc
#endif

/// A set of repeated measurements summarised by its median and spread (the interquartile range).
struct Summary {
  /// How many measurements.
  let count: Int
  /// The median.
  let median: Double
  /// The 25th percentile.
  let p25: Double
  /// The 75th percentile.
  let p75: Double
  /// The smallest measurement.
  let minimum: Double
  /// The largest measurement.
  let maximum: Double
  /// A 95 % confidence interval for the median (order statistics, distribution-free).
  let medianCI: (low: Double, high: Double)

  /// Summarises `values`; nil when there are none.
  init?(_ values: [Double]) {
    guard !values.isEmpty else { return nil }
    let sorted = values.sorted()
    count = sorted.count
    median = Self.quantile(sorted, 0.5)
    p25 = Self.quantile(sorted, 0.25)
    p75 = Self.quantile(sorted, 0.75)
    minimum = sorted[0]
    maximum = sorted[sorted.count - 1]
    let k = max(0, Int(((Double(count) - 1.96 * Double(count).squareRoot()) / 2).rounded(.down)))
    medianCI = (sorted[min(k, count - 1)], sorted[max(0, count - 1 - k)])
  }

  /// The interquartile range relative to the median, in percent (the "± spread" printed beside it).
  var relativeSpread: Double { median == 0 ? 0 : (p75 - p25) / 2 / abs(median) * 100 }

  /// Linear interpolation between the closest ranks.
  static func quantile(_ sorted: [Double], _ q: Double) -> Double {
    let position = q * Double(sorted.count - 1)
    let low = Int(position.rounded(.down))
    let high = min(low + 1, sorted.count - 1)
    let fraction = position - Double(low)
    return sorted[low] + (sorted[high] - sorted[low]) * fraction
  }

  /// The summary as JSON, each value scaled by `scale` (for example 1e3 for seconds to milliseconds).
  func json(scale: Double = 1) -> JSON {
    .object([
      ("median", .number(median * scale)), ("p25", .number(p25 * scale)), ("p75", .number(p75 * scale)),
      ("min", .number(minimum * scale)), ("max", .number(maximum * scale)), ("n", .number(Double(count))),
      ("median_ci95", .array([.number(medianCI.low * scale), .number(medianCI.high * scale)])),
    ])
  }
}

/// Pair-by-pair measurements of a subject (A) against a reference (B) taken in the same run, A B A B ….
struct PairedSamples {
  /// The subject's measurements.
  var subject: [Double] = []
  /// The reference's measurements.
  var reference: [Double] = []
  /// Runs that did not end as expected (their pair is dropped).
  var failures = 0

  /// The pairs a measuring loop printed, one line `round SUBJECT REFERENCE` each; a line `failed …` counts a
  /// failure, any other line is ignored.
  init(roundLines lines: [Substring]) {
    for line in lines {
      let fields = line.split(separator: " ")
      if fields.first == "failed" { failures += 1 }
      guard fields.count == 3, fields[0] == "round", let a = Double(fields[1]), let b = Double(fields[2]) else { continue }
      add(subject: a, reference: b)
    }
  }

  init() {}

  /// Adds one pair.
  mutating func add(subject a: Double, reference b: Double) {
    subject.append(a)
    reference.append(b)
  }

  /// The subject's ratio to the reference, one per pair.
  var ratios: [Double] { zip(subject, reference).compactMap { $1 > 0 ? $0 / $1 : nil } }
  /// The subject minus the reference, one per pair.
  var differences: [Double] { zip(subject, reference).map { $0 - $1 } }
}

/// The Wilson score interval (95 %) for `k` events in `n` trials.
func wilsonInterval(_ k: Int, _ n: Int) -> (low: Double, high: Double) {
  guard n > 0 else { return (0, 1) }
  let z = 1.959964
  let p = Double(k) / Double(n)
  let nn = Double(n)
  let denominator = 1 + z * z / nn
  let centre = (p + z * z / (2 * nn)) / denominator
  let half = z * (p * (1 - p) / nn + z * z / (4 * nn * nn)).squareRoot() / denominator
  return (max(0, centre - half), min(1, centre + half))
}

/// A monotonic timestamp in seconds.
func monotonicSeconds() -> Double {
  var ts = timespec()
  clock_gettime(CLOCK_MONOTONIC, &ts)
  return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

/// This process's resident memory in KiB, from /proc/self/status (VmRSS).
func residentKiB() -> Double {
  guard let file = fopen("/proc/self/status", "r") else { return 0 }
  defer { fclose(file) }
  var line = [CChar](repeating: 0, count: 256)
  while fgets(&line, Int32(line.count), file) != nil {
    let text = String(decoding: line.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    if text.hasPrefix("VmRSS:") {
      let digits = text.dropFirst(6).filter { $0.isNumber }
      return Double(String(digits)) ?? 0
    }
  }
  return 0
}

/// Resident KiB of this process's mappings of `path`, by kind, from /proc/self/smaps.
func mappedResidentKiB(of path: String) -> (code: Double, readOnly: Double, writable: Double, dirty: Double) {
  var result = (code: 0.0, readOnly: 0.0, writable: 0.0, dirty: 0.0)
  guard let text = readText("/proc/self/smaps") else { return result }
  var permissions: Substring? = nil
  for line in text.split(separator: "\n") {
    let fields = line.split(separator: " ", omittingEmptySubsequences: true)
    if fields.count >= 5, fields[0].contains("-"), !fields[0].hasSuffix(":") {
      permissions = fields.count >= 6 && fields[5] == path ? fields[1] : nil
      continue
    }
    guard let permissions, fields.count >= 2, let kib = Double(fields[1]) else { continue }
    if fields[0] == "Rss:" {
      if permissions.contains("x") { result.code += kib } else if permissions.contains("w") { result.writable += kib } else { result.readOnly += kib }
    } else if fields[0] == "Private_Dirty:" {
      result.dirty += kib
    }
  }
  return result
}
