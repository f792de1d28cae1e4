import LocalAuthCore
import LocalAuthTesting
import Testing

/// In the core, a user without a passcode costs the same yescrypt work as a wrong passcode. (The module does not
/// get that far for such a user, nor for an unknown one: IntegrationTests' "Enumeration" suite.)
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
      let (notSet, notSetWork) = try HashWork.shared.measure {
        try evaluator(answer).evaluate(EvaluationRequest(user: nobody, policy: .deviceOwnerAuthentication, reason: "test"))
      }
      #expect(wrong == .failure(.authenticationFailed, .none))
      #expect(notSet == .failure(.passcodeNotSet, .none))
      #expect(wrongWork == [storedParameters], "wrong passcode: \(wrongWork)")
      #expect(notSetWork == wrongWork, "no passcode: \(notSetWork) against \(wrongWork)")
      lines.append("\(wrongWork.count)/\(notSetWork.count)")
    }
    // Entries refused before hashing are refused before hashing on every path.
    for answer in ["", "12\u{0}34", String(repeating: "9", count: 1 << 20)] {
      let (_, wrongWork) = try HashWork.shared.measure { try evaluator(answer).evaluate(world.request(.deviceOwnerAuthentication)) }
      #expect(wrongWork.isEmpty, "\(answer.utf8.count) bytes: \(wrongWork.count)")
    }
    report(
      "timing: yescrypt computations (parameters \(storedParameters)) for wrong passcode / no passcode: "
        + lines.joined(separator: ", ") + "; empty, NUL and 1 MiB entries: 0 on every path")
  }
}
