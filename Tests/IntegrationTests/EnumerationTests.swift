import Foundation
import Testing

extension RealPAM {
  /// docs/RULES.md, "Users the module does not apply to": an unknown user, a user without a passcode and (with
  /// feature=) a user without the feature get the same conversation, the same code and the same time, so a caller
  /// cannot tell them apart.
  @Suite("Enumeration", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"))
  struct EnumerationTests {
    /// One case: who is asked for, and how the sandbox is prepared.
    struct Case: Sendable {
      let label: String
      let user: @Sendable (Sandbox) -> String
      let prepare: @Sendable (Sandbox) throws -> Void
    }

    static let plain: [Case] = [
      Case(label: "unknown user", user: { _ in "latnosuchuser" }, prepare: { _ in }),
      Case(label: "no passcode", user: { $0.user }, prepare: { try $0.enroll() }),
    ]

    static let featureMode: [Case] = plain + [
      Case(label: "feature not enabled", user: { $0.user }, prepare: Setups.ready)
    ]

    /// What a caller sees of one run: the code, every line of the conversation, and how long it took.
    struct Seen: Equatable {
      let verdict: String
      let conversation: [String]
    }

    func observe(_ cases: [Case], arguments: [String], rounds: Int) throws -> [(Seen, [Double])] {
      try cases.map { item in
        try withSandbox { s in
          try item.prepare(s)
          try s.writeService([s.moduleLine(arguments)])
          var times: [Double] = []
          var seen: Seen?
          for _ in 0..<rounds {
            let start = Date()
            let run = try s.pamtester(user: item.user(s), stdin: "1234\n")
            times.append(Date().timeIntervalSince(start))
            // The conversation as the caller sees it: prompts, info and errors, without the user's name.
            let lines = (run.info + run.conversation.split(separator: "\n").map(String.init))
              .filter { !$0.hasPrefix("PWRAP_") && !$0.contains("pamtester: ") }
              .map { $0.replacingOccurrences(of: item.user(s), with: "USER") }
            let now = Seen(verdict: run.verdict, conversation: lines)
            #expect(seen == nil || seen == now, "\(item.label) changed between runs")
            seen = now
          }
          return (try #require(seen), times.sorted())
        }
      }
    }

    @Test("unknown user and user without a passcode: same code, nothing asked, same time")
    func plainMode() throws {
      let results = try observe(Self.plain, arguments: [], rounds: 15)
      try check(results, labels: Self.plain.map(\.label), verdict: PAMText.verdict("PAM_AUTHINFO_UNAVAIL"))
    }

    @Test("feature= mode: unknown user, no passcode and feature not enabled all give PAM_IGNORE, nothing asked")
    // Alone in the stack, PAM_IGNORE leaves libpam without a verdict: it fails the call, the same way for all three.
    func featureModeCases() throws {
      let results = try observe(Self.featureMode, arguments: ["feature=vpn"], rounds: 15)
      try check(results, labels: Self.featureMode.map(\.label), verdict: nil)
    }

    /// Every case was seen the same way, asked nothing, and their fastest runs are within 5 ms of each other (they
    /// differ only by a file read; no case prompts or hashes, which would cost tens of milliseconds every run). The
    /// cases run one after the other, so the fastest run of each, not the median, is compared: a burst of load on a
    /// shared 2-core machine moves one case's median by milliseconds, never every run of it.
    func check(_ results: [(Seen, [Double])], labels: [String], verdict: String?) throws {
      let first = try #require(results.first?.0)
      for (index, (seen, _)) in results.enumerated() {
        #expect(seen == first, "\(labels[index]): \(seen) against \(labels[0]): \(first)")
        #expect(seen.conversation.isEmpty, "\(labels[index]) was shown \(seen.conversation)")
      }
      #expect(!first.verdict.contains("successfully"), "\(first.verdict)")
      if let verdict { #expect(first.verdict == verdict) }
      let medians = results.map { $0.1[$0.1.count / 2] }
      let fastest = results.map { $0.1.first ?? 0 }
      let spread = (fastest.max() ?? 0) - (fastest.min() ?? 0)
      let shown = { (times: [Double]) in zip(labels, times).map { "\($0) \(String(format: "%.1f", $1 * 1000)) ms" }.joined(separator: ", ") }
      print("RELIABILITY: enumeration: pamtester medians \(shown(medians)); fastest \(shown(fastest))")
      #expect(spread < 0.005, "fastest runs \(fastest), medians \(medians)")
    }
  }
}
