/// A figure measured on a disturbed machine (issue 40, item 13): when the per-round ratios spread wider than the
/// figure allows, the median says more about what else ran than about pam_localauth, so the table says "disturbed:
/// measure again" instead of yes or NO, and the documents give the reason instead of the figure's meaning.
///
/// The spread is the interquartile range (p25–p75) of the per-round ratios as a share of their median. Each round
/// takes subject and reference back to back, so steady load cancels out in the ratio and its spread stays narrow
/// on a quiet machine; a spread that is wide means the load changed from one round to the next, within a round.
struct RatioJudgement {
  /// The "Met" cell: "yes", "NO", "—" without a ratio, or `RatioJudgement.disturbed`.
  let verdict: String
  /// Why the figure is not a result, one sentence; nil when it is one.
  let disturbance: String?

  /// The "Met" cell of a figure that is not a result.
  static let disturbed = "disturbed: measure again"

  /// Judges `ratio` against its target (`meets`), unless its interquartile range is more than `spreadLimit`
  /// percent of its median; `again` says how to measure the figure alone.
  init(_ ratio: Summary?, spreadLimit: Double, again: String, meets: (Summary) -> Bool) {
    guard let ratio else {
      (verdict, disturbance) = ("—", nil)
      return
    }
    let share = ratio.interquartileShare
    guard !(share <= spreadLimit) else {
      (verdict, disturbance) = (meets(ratio) ? "yes" : "NO", nil)
      return
    }
    verdict = Self.disturbed
    disturbance =
      "measured on a disturbed machine: the per-round ratios spread \(fixed(ratio.p25, 2))–\(fixed(ratio.p75, 2)) "
      + "around \(fixed(ratio.median, 2))×, an interquartile range of \(fixed(share, 0)) % of the median, more than "
      + "the \(fixed(spreadLimit, 0)) % this figure allows; measure it again (\(again)) on a quiet machine."
  }
}

extension Summary {
  /// The interquartile range as a share of the median, in percent (twice `relativeSpread`); not a number when
  /// the median is 0.
  var interquartileShare: Double { (p75 - p25) / abs(median) * 100 }
}
