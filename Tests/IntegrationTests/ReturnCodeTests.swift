import Foundation
import Testing

extension RealPAM {
  /// Each row of the return-code table, once through pam_start_confdir and once through pamtester.
  @Suite("Return codes")
  struct ReturnCodeTests {
    @Test("PAMHarness under pam_start_confdir", arguments: ReturnCodeScenarios.all)
    func harness(_ scenario: Scenario) throws {
      try withSandbox { sandbox in
        try scenario.setup(sandbox)
        try scenario.writeService(in: sandbox)
        let run = try sandbox.harness(user: scenario.otherUser, answers: scenario.answers, scenario.harnessOptions)
        #expect(run.results == [scenario.stackResult], "\(run.lines)")
        #expect(run.messages == scenario.expectedMessages)
        #expect(run.status == (scenario.stackResult == "PAM_SUCCESS" ? 0 : 1))
      }
    }

    @Test(
      "pamtester under pam_wrapper", .enabled(if: Artifacts.pamtesterAvailable, "pamtester or libpam-wrapper missing"),
      arguments: ReturnCodeScenarios.all.filter(\.viaPamtester))
    func pamtester(_ scenario: Scenario) throws {
      try withSandbox { sandbox in
        try scenario.setup(sandbox)
        try scenario.writeService(in: sandbox)
        let typed = scenario.answers.map { $0 + "\n" }.joined()
        let run = try sandbox.pamtester(
          [scenario.pamtesterOperation], user: scenario.otherUser, stdin: typed, options: scenario.pamtesterOptions)
        #expect(run.verdict == PAMText.verdict(scenario.stackResult), "\(run.run.stderr)")
        #expect(run.status == (scenario.stackResult == "PAM_SUCCESS" ? 0 : 1))
        let info = scenario.expectedMessages.filter { $0.hasPrefix("info: ") }.map { String($0.dropFirst(6)) }
        #expect(run.info == info)
        for line in scenario.expectedMessages where line.hasPrefix("error: ") {
          #expect(run.conversation.contains(line.dropFirst(7)), "missing \(line) in \(run.conversation)")
        }
        for line in scenario.expectedMessages where line.hasPrefix("prompt: ") {
          #expect(run.conversation.contains(line.dropFirst(8)), "missing \(line) in \(run.conversation)")
        }
        if let log = scenario.log {
          #expect(run.syslog.contains { $0.contains(log) }, "no log line with \(log) in \(run.syslog)")
        }
      }
    }
  }
}
