import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// How `status` prints a report, as text for people and as JSON for scripts.
enum StatusFormat {
  /// The policies' canEvaluate results: "yes", or the LAError name and code.
  static func describe(_ code: AuthErrorCode?) -> String {
    code.map { "no: \($0.name) (\($0.rawValue))" } ?? "yes"
  }

  /// The report as aligned "Label: value" lines.
  static func text(_ r: StatusReport, waitingPrompts: Int) -> String {
    var rows: [(String, String)] = []
    func time(_ t: WallTime?) -> String { t.map { formatTime($0, relativeTo: r.now) } ?? "never" }
    rows.append(("User", r.user + (r.hasRecord ? "" : " (no state file yet)")))
    rows.append(("Biometry type", r.biometryType?.rawValue ?? "none (no sensor configured)"))
    let names = r.enrolledNames.joined(separator: ", ")
    rows.append(("Enrolled", "\(r.enrolled.count)" + (names.isEmpty ? "" : " (\(names))")))
    rows.append(("Domain state", r.domainState.map { "\($0.prefix(16))… (generation \(r.enrollmentGeneration))" } ?? "none"))
    rows.append(("Biometric failures", "\(r.biometricFailures) of \(r.lockoutThreshold)"))
    rows.append(("Biometry locked out", r.isLockedOut ? "yes (the passcode unlocks it)" : "no"))
    switch r.passcodeSource {
    case .separate:
      rows.append(("Passcode", r.passcodeSet ? "set" : "not set"))
    case .account:
      rows.append(("Passcode", "the login password (passcode=account), " + (r.accountRefusal.map { "not usable: \($0)" } ?? "usable")))
    }
    rows.append(("Passcode failures", "\(r.passcodeFailures)"))
    rows.append(("Next passcode attempt", r.passcodeNextAllowed.map { time($0) } ?? "now"))
    rows.append(("Last success", time(r.lastSuccess)))
    rows.append(("Last biometric match", time(r.lastBiometricSuccess)))
    rows.append(("Last passcode success", time(r.lastPasscodeSuccess)))
    rows.append(("Passcode required now", r.passcodeRequirement.map { "yes: \($0.message) (\($0.rawValue))" } ?? "no"))
    switch r.biometry {
    case .usable(let m): rows.append(("Biometry", "usable (\(m.rawValue))"))
    case .unusable(let code, let detail):
      let why: String
      switch detail {
      case .passcodeRequired: why = ", until the passcode is entered"
      case .biometryLockedOut(let n): why = ", after \(n) failed matches"
      default: why = ""
      }
      rows.append(("Biometry", "unusable: \(code.name) (\(code.rawValue))\(why)"))
    }
    rows.append(("deviceOwnerAuthentication", describe(r.deviceOwnerError)))
    rows.append(("…WithBiometrics", describe(r.biometricsError)))
    rows.append(("Features", r.features.isEmpty ? "none" : r.features.joined(separator: ", ")))
    rows.append(("Prompts waiting", "\(waitingPrompts)"))
    for (index, failure) in r.recentFailures.reversed().enumerated() {
      rows.append((index == 0 ? "Recent failures" : "", describe(failure, relativeTo: r.now)))
    }
    let width = rows.map { $0.0.count }.max() ?? 0
    return rows.map { label, value in
      (label.isEmpty ? " " : label + ":") + String(repeating: " ", count: width - label.count + 2) + value
    }.joined(separator: "\n")
  }

  /// One failure, newest first in the text: when, what, who asked, through what and from where.
  static func describe(_ f: FailureEntry, relativeTo now: WallTime) -> String {
    let who = requesterName(f.requesterUID)
    let tty = f.tty.isEmpty ? "no tty" : f.tty
    let remote = f.remoteHost.isEmpty ? "" : ", from \(f.remoteHost)"
    return "\(formatTime(f.at, relativeTo: now)): \(f.kind.rawValue) failed, asked by \(who) through \(f.service) on \(tty)\(remote)"
  }

  /// "name (uid N)", or "uid N" without a passwd entry.
  static func requesterName(_ uid: UInt32) -> String {
    guard let entry = getpwuid(uid), let name = entry.pointee.pw_name else { return "uid \(uid)" }
    return "\(String(cString: name)) (uid \(uid))"
  }

  /// The columns of `status` without a user.
  static let summaryHeader = ["USER", "ENROLLED", "BIO-FAILURES", "LOCKED", "PASSCODE", "FAILURES", "NEXT-ATTEMPT", "REQUIRED"]

  /// One user's summary line, under `summaryHeader`.
  static func summaryRow(_ r: StatusReport) -> [String] {
    [
      r.user, String(r.enrolled.count), "\(r.biometricFailures)/\(r.lockoutThreshold)", r.isLockedOut ? "yes" : "no",
      r.passcodeSet ? "set" : "not-set", String(r.passcodeFailures), r.passcodeNextAllowed.map { formatTime($0) } ?? "now",
      r.passcodeRequirement?.rawValue ?? "no",
    ]
  }

  /// Rows as left-aligned columns two spaces apart, without trailing spaces.
  static func table(_ rows: [[String]]) -> String {
    let columns = rows.map(\.count).max() ?? 0
    // A row's last cell never widens its column, so a short row's long note does not stretch the table.
    let widths = (0..<columns).map { c in rows.map { c < $0.count - 1 ? $0[c].count : 0 }.max() ?? 0 }
    return rows.map { row in
      row.enumerated().map { c, cell in
        c == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[c] - cell.count + 2)
      }.joined()
    }.joined(separator: "\n")
  }

  /// The report as a JSON object with stable keys.
  static func json(_ r: StatusReport, waitingPrompts: Int) -> JSONValue {
    func time(_ t: WallTime?) -> JSONValue { t.map { .number($0.seconds) } ?? .null }
    func code(_ c: AuthErrorCode?) -> JSONValue {
      c.map { .object([("name", .string($0.name)), ("code", .int($0.rawValue))]) } ?? .null
    }
    let biometry: JSONValue
    switch r.biometry {
    case .usable: biometry = .object([("usable", .bool(true)), ("error", .null)])
    case .unusable(let c, _): biometry = .object([("usable", .bool(false)), ("error", code(c))])
    }
    return .object([
      ("user", .string(r.user)),
      ("hasStateFile", .bool(r.hasRecord)),
      ("biometryType", .string(r.biometryType?.rawValue ?? "none")),
      ("enrolledCount", .int(r.enrolled.count)),
      (
        "enrolled",
        .array(
          r.enrolled.map {
            .object([
              ("name", .string($0.name)), ("modality", .string($0.modality.rawValue)),
              ("enrolledAt", .number($0.enrolledAt.seconds)),
            ])
          })
      ),
      ("domainState", .string(r.domainState)),
      ("enrollmentGeneration", .int(r.enrollmentGeneration)),
      ("biometricFailures", .int(r.biometricFailures)),
      ("lockoutThreshold", .int(r.lockoutThreshold)),
      ("lockedOut", .bool(r.isLockedOut)),
      ("passcodeSet", .bool(r.passcodeSet)),
      ("passcodeSecret", .string(r.passcodeSource == .account ? "account" : "separate")),
      ("accountPasswordRefusal", .string(r.accountRefusal?.description)),
      ("passcodeFailures", .int(r.passcodeFailures)),
      ("passcodeNextAllowed", time(r.passcodeNextAllowed)),
      ("lastSuccess", time(r.lastSuccess)),
      ("lastBiometricSuccess", time(r.lastBiometricSuccess)),
      ("lastPasscodeSuccess", time(r.lastPasscodeSuccess)),
      ("passcodeRequired", .bool(r.passcodeRequired)),
      ("passcodeRequiredReason", .string(r.passcodeRequirement?.rawValue)),
      ("passcodeRequiredMessage", .string(r.passcodeRequirement?.message)),
      ("biometry", biometry),
      (
        "canEvaluate",
        .object([
          ("deviceOwnerAuthentication", code(r.deviceOwnerError)),
          ("deviceOwnerAuthenticationWithBiometrics", code(r.biometricsError)),
        ])
      ),
      ("features", .array(r.features.map { .string($0) })),
      ("waitingPrompts", .int(waitingPrompts)),
      (
        "recentFailures",
        .array(
          r.recentFailures.map {
            .object([
              ("at", .number($0.at.seconds)), ("kind", .string($0.kind.rawValue)), ("requesterUid", .int(Int($0.requesterUID))),
              ("service", .string($0.service)), ("tty", .string($0.tty)), ("remoteHost", .string($0.remoteHost)),
            ])
          })
      ),
      ("now", .number(r.now.seconds)),
    ])
  }
}
