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

  @Test("the codes an evaluation produces keep their allCases index; the four Apple-only codes come after them")
  func order() {
    let produced: [AuthErrorCode] = [
      .authenticationFailed, .userCancel, .userFallback, .systemCancel, .passcodeNotSet, .biometryNotAvailable,
      .biometryNotEnrolled, .biometryLockout, .appCancel, .invalidContext, .notInteractive,
    ]
    #expect(Array(AuthErrorCode.allCases.prefix(produced.count)) == produced)
    #expect(Array(AuthErrorCode.allCases.dropFirst(produced.count)).map(\.rawValue) == [-11, -12, -13, -14])
  }

  @Test("every code has both sentences; Apple's wording differs only for the four cancellations")
  func sentences() {
    let differing = AuthErrorCode.allCases.filter { $0.message != $0.localizedDescription }
    #expect(differing == [.userCancel, .userFallback, .systemCancel, .appCancel])
    #expect(AuthErrorCode.allCases.allSatisfy { $0.message.hasSuffix(".") && $0.localizedDescription.hasSuffix(".") })
  }
}
