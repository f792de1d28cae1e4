import LocalAuthCore
import Testing

/// The core's table of Apple's LAError codes (Sources/LocalAuthCore/Evaluation/AuthErrorCode.swift).
@Suite("AuthErrorCode: Apple's LAError table")
struct AuthErrorCodeTests {
  @Test("each code's name is its Swift spelling, and names and raw values are unique")
  func names() {
    for code in AuthErrorCode.allCases {
      #expect(code.name == String(describing: code))
    }
    #expect(Set(AuthErrorCode.allCases.map(\.name)).count == AuthErrorCode.allCases.count)
    #expect(Set(AuthErrorCode.allCases.map(\.rawValue)).count == AuthErrorCode.allCases.count)
  }

  @Test("Apple's fifteen codes with Apple's raw values, whatever their order in the enum (the wire carries values)")
  func rawValues() {
    #expect(
      Set(AuthErrorCode.allCases.map(\.rawValue))
        == [-1, -2, -3, -4, -5, -6, -7, -8, -9, -10, -11, -12, -13, -14, -1004])
  }

  @Test("every code has both sentences; Apple's wording differs only for the four cancellations")
  func sentences() {
    let differing = AuthErrorCode.allCases.filter { $0.message != $0.localizedDescription }
    #expect(differing == [.userCancel, .userFallback, .systemCancel, .appCancel])
    #expect(AuthErrorCode.allCases.allSatisfy { $0.message.hasSuffix(".") && $0.localizedDescription.hasSuffix(".") })
  }
}
