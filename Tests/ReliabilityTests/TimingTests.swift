import LocalAuthCore
import Testing

/// An unknown user and a user without a passcode cost the same yescrypt work as a wrong passcode.
@Suite(.serialized)
struct TimingTests {
  @Test func everyRefusalCostsTheSameYescryptWork() throws {
    let world = try PrimedWorld(store: InMemoryStateStore())
    let nobody = try UserName("no-passcode")
    try world.store.update(nobody) { $0.enrollmentGeneration = 1 }
    let storedParameters = try #require(try world.store.load(world.user)?.passcodeHash)
      .split(separator: "$", omittingEmptySubsequences: false).prefix(3).joined(separator: "$")
    func evaluator(_ answer: String) -> PolicyEvaluator {
      world.evaluator(sensor: AbsentSensor(), prompter: ScriptedPrompter(answers: [answer]))
    }
    var lines: [String] = []
    for answer in ["4321", "a much longer wrong passcode", "ünïcødé"] {
      let (wrong, wrongWork) = try HashWork.shared.measure { try evaluator(answer).evaluate(world.request(.deviceOwnerAuthentication)) }
      let (unknown, unknownWork) = try HashWork.shared.measure {
        try evaluator(answer).evaluateUnknownUser(reason: "test", fallbackTitle: nil)
      }
      let (notSet, notSetWork) = try HashWork.shared.measure {
        try evaluator(answer).evaluate(EvaluationRequest(user: nobody, policy: .deviceOwnerAuthentication, reason: "test"))
      }
      #expect(wrong == .failure(.authenticationFailed, .none))
      #expect(unknown == .failure(.authenticationFailed, .unknownUser))
      #expect(notSet == .failure(.passcodeNotSet, .none))
      #expect(wrongWork == [storedParameters], "wrong passcode: \(wrongWork)")
      #expect(unknownWork == wrongWork, "unknown user: \(unknownWork) against \(wrongWork)")
      #expect(notSetWork == wrongWork, "no passcode: \(notSetWork) against \(wrongWork)")
      lines.append("\(wrongWork.count)/\(unknownWork.count)/\(notSetWork.count)")
    }
    // Entries refused before hashing are refused before hashing on every path.
    for answer in ["", "12\u{0}34", String(repeating: "9", count: 1 << 20)] {
      let (_, wrongWork) = try HashWork.shared.measure { try evaluator(answer).evaluate(world.request(.deviceOwnerAuthentication)) }
      let (_, unknownWork) = try HashWork.shared.measure { try evaluator(answer).evaluateUnknownUser(reason: "test", fallbackTitle: nil) }
      #expect(wrongWork.isEmpty && unknownWork.isEmpty, "\(answer.utf8.count) bytes: \(wrongWork.count) vs \(unknownWork.count)")
    }
    report(
      "timing: yescrypt computations (parameters \(storedParameters)) for wrong passcode / unknown user / no passcode: "
        + lines.joined(separator: ", ") + "; empty, NUL and 1 MiB entries: 0 on every path")
  }
}
