import Foundation
import Testing

extension RealPAM {
  /// 100,000 pam_start/pam_authenticate/pam_end cycles in one process keep resident memory flat, as a
  /// screen locker needs. The cycle uses feature= mode (the module runs: options, state, decision) so it
  /// needs no sensor wait.
  @Suite("Memory over many cycles")
  struct CycleTests {
    static let cycles = 100_000

    @Test("100,000 cycles grow resident memory by less than 1 MiB after warm-up")
    func flat() throws {
      try withSandbox { s in
        try s.setPasscode()
        try s.writeService([
          s.moduleLine(["feature=vpn"], control: "[success=done ignore=ignore default=die]"),
          "auth required pam_permit.so",
        ])
        let started = Date()
        let run = try Run.program(
          Artifacts.harness,
          ["--confdir", s.serviceDir, "--service", s.service, "--user", s.user, "--cycles", "\(Self.cycles)"],
          timeout: 900)
        let seconds = Date().timeIntervalSince(started)
        let lines = run.stdoutLines
        func kib(_ prefix: String) -> Int? {
          lines.first { $0.hasPrefix(prefix) }.flatMap { $0.dropFirst(prefix.count).split(separator: " ").first }.flatMap { Int($0) }
        }
        let warm = try #require(kib("rss-after-warmup: "), "\(lines)")
        let end = try #require(kib("rss-end: "), "\(lines)")
        #expect(lines.contains("results: PAM_SUCCESS (0) x \(Self.cycles)"), "\(lines)")
        #expect(end - warm < 1024, "resident memory grew from \(warm) KiB to \(end) KiB")
        print("cycles: \(Self.cycles) in \(Int(seconds)) s; resident \(warm) KiB after warm-up, \(end) KiB at the end")
      }
    }
  }
}
