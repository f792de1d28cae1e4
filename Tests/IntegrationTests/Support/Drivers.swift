import Foundation

/// What PAMHarness printed: the conversation's messages and each operation's result.
struct HarnessRun {
  /// Every line, in order.
  let lines: [String]
  /// The exit status.
  let status: Int32
  /// Standard error (usage errors only).
  let stderr: String

  /// The conversation lines (`info: `, `error: `, `prompt: `), without results.
  var messages: [String] { lines.filter { !$0.hasPrefix("result: ") } }
  /// The result names in order, such as PAM_SUCCESS.
  var results: [String] {
    lines.filter { $0.hasPrefix("result: ") }.compactMap { $0.dropFirst(8).split(separator: " ").first.map(String.init) }
  }
  /// The last result's name.
  var result: String { results.last ?? "none" }
}

extension Sandbox {
  /// Runs PAMHarness on this sandbox's service folder.
  func harness(
    user: String? = nil, answers: [String] = [], operations: [String] = [], _ extra: [String] = []
  ) throws -> HarnessRun {
    var arguments = ["--confdir", serviceDir, "--service", service, "--user", user ?? self.user]
    for answer in answers { arguments += ["--answer", answer] }
    for operation in operations { arguments += ["--op", operation] }
    let run = try presentingTouches { try Run.program(Artifacts.harness, arguments + extra) }
    return HarnessRun(lines: run.stdoutLines, status: run.status, stderr: run.stderr)
  }
}

/// What pamtester printed under pam_wrapper: info lines on stdout, errors and prompts on stderr, the
/// module's syslog lines (which pam_wrapper copies to stderr as `SYSLOG(priority): text`).
struct PamtesterRun {
  let run: ProcessRun

  /// The exit status: 0 when every operation succeeded.
  var status: Int32 { run.status }
  /// pamtester's own verdict, such as "pamtester: Authentication failure".
  var verdict: String {
    (run.stdout + "\n" + run.stderr).split(separator: "\n").map(String.init).last(where: { $0.contains("pamtester: ") })
      .flatMap { line in line.range(of: "pamtester: ").map { String(line[$0.lowerBound...]) } } ?? "none"
  }
  /// The info lines (pamtester prints them, and its success verdict, on stdout).
  var info: [String] { run.stdoutLines.filter { !$0.hasPrefix("pamtester: ") } }
  /// stderr without pam_wrapper's own lines: prompts and error messages.
  var conversation: String {
    run.stderr.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("PWRAP_") }
      .joined(separator: "\n")
  }
  /// The module's log sentences.
  var syslog: [String] {
    run.stderr.split(separator: "\n").compactMap { line -> String? in
      guard let range = line.range(of: "SYSLOG(") else { return nil }
      let rest = line[range.upperBound...]
      guard let close = rest.range(of: "): ") else { return nil }
      return String(rest[close.upperBound...])
    }.filter { !$0.hasPrefix("_pam_init_handlers") }
  }
}

extension Sandbox {
  /// Runs pamtester through pam_wrapper on this sandbox's service folder, with `stdin` as the typed input.
  func pamtester(
    _ operations: [String] = ["authenticate"], user: String? = nil, stdin: String? = nil, options: [String] = []
  ) throws -> PamtesterRun {
    let environment = pamtesterEnvironment()
    let run = try presentingTouches {
      try Run.program(
        Artifacts.pamtester, options + [service, user ?? self.user] + operations, stdin: stdin ?? "", environment: environment)
    }
    return PamtesterRun(run: run)
  }
}

/// Linux-PAM's pam_strerror texts, as pamtester prints them after "pamtester: ".
enum PAMText {
  static let strerror: [String: String] = [
    "PAM_SUCCESS": "successfully authenticated",
    "PAM_AUTH_ERR": "Authentication failure",
    "PAM_MAXTRIES": "Have exhausted maximum number of retries for service",
    "PAM_AUTHINFO_UNAVAIL": "Authentication service cannot retrieve authentication info",
    "PAM_USER_UNKNOWN": "User not known to the underlying authentication module",
    "PAM_CONV_ERR": "Conversation error",
    "PAM_SERVICE_ERR": "Error in service module",
    "PAM_SYSTEM_ERR": "System error",
    "PAM_PERM_DENIED": "Permission denied",
    "PAM_AUTHTOK_ERR": "Authentication token manipulation error",
    "PAM_INCOMPLETE": "Application needs to call libpam again",
  ]

  /// pamtester's verdict line for a code.
  static func verdict(_ name: String) -> String { "pamtester: " + (strerror[name] ?? name) }
}
