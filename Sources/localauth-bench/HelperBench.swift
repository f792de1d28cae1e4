import LocalAuthCore
import LocalAuthTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Item 7: an unprivileged caller (docs/HELPER.md). pamtester run as the benchmark user (not root) with the passcode
/// through pam_localauth, which starts the setuid localauth-helper, against pam_unix with the password, which
/// starts the setgid unix_chkpwd; both secrets are yescrypt at the same cost.
///
/// The helper reads only /etc/security/localauth.conf, so the rounds run in a private mount namespace with a
/// copy of /etc/security bound over it, and the timing loop itself runs there as the user
/// (`localauth-bench --unprivileged-loop`): both sides pay the same spawn and nothing else.
struct HelperBench {
  let paths: BenchPaths
  let user: BenchUser
  let passcode: String
  let cost: UInt
  let pamtester: String
  let counts: BenchCounts

  /// A folder the user can reach, whatever the build folder's mode (`make test` makes it root's alone): the setuid
  /// helper, copies of the module and of this benchmark, the /etc/security copy, the services and the secret.
  let folder = "/tmp/localauth-bench-helper"

  func run(into report: inout Report) throws {
    let helperBuilt = paths.build + "/localauth-helper"
    guard access(helperBuilt, X_OK) == 0 else { throw SetupError("\(helperBuilt) is missing; run make helper.") }
    guard let unshare = Spawn.which("unshare"), let setpriv = Spawn.which("setpriv") else {
      throw SetupError("unshare and setpriv (util-linux) are needed.")
    }
    Spawn.setup(["/bin/rm", "-rf", folder])
    defer { Spawn.setup(["/bin/rm", "-rf", folder]) }
    for path in [folder, folder + "/pam_localauth"] {
      guard mkdir(path, 0o755) == 0 else { throw SetupError("Cannot create \(path).") }
    }
    let services = try PAMServiceFolder.create(folder + "/pam.d")
    let helper = folder + "/localauth-helper"
    let module = folder + "/pam_localauth.so"
    let bench = folder + "/localauth-bench"
    guard Spawn.setup(["/usr/bin/install", "-o", "root", "-g", "root", "-m", "4755", helperBuilt, helper]),
      Spawn.setup(["/usr/bin/install", "-m", "0644", paths.module, module]),
      // The module runs a caller that is not root in its library beside it (pam_localauth/extra.so).
      Spawn.setup(["/usr/bin/install", "-m", "0644", paths.extraLibrary, folder + "/pam_localauth/extra.so"]),
      Spawn.setup(["/usr/bin/install", "-m", "0755", paths.build + "/localauth-bench", bench]),
      Spawn.setup(["/bin/cp", "-a", "/etc/security", folder + "/etc-security"])
    else { throw SetupError("Cannot install the helper or copy /etc/security under \(folder).") }
    try writeFile(folder + "/etc-security/localauth.conf", "state_dir=\(folder)/state\nsensor=none\n", mode: 0o644)
    // The passcode, at the cost of the user's /etc/shadow hash, in the folder the helper's configuration names.
    _ = try BenchState(root: folder + "/state", user: user.name, modality: .touchID, items: [], passcode: passcode, cost: cost)
    let secret = folder + "/secret.in"
    try writeFile(secret, passcode + "\n", mode: 0o644)
    // The module reads its arguments' conf= as the user: an empty one the user can read.
    try writeFile(folder + "/empty.conf", "# Empty: the helper reads only /etc/security/localauth.conf.\n", mode: 0o644)
    try services.writeDenyingOther()
    let permit = "account required \(paths.securityDir)/pam_permit.so"
    try services.write("wh-helper", lines: ["auth required \(module) conf=\(folder)/empty.conf helper=\(helper)", permit])
    try services.write("wh-unix", lines: ["auth required \(paths.securityDir)/pam_unix.so", permit])
    let output = folder + "/rounds.out"
    let script = "mount --bind \"$0\" /etc/security && uid=\"$1\" && shift && exec \"$@\""
    let loop = [
      unshare, "--mount", "--propagation", "private", "/bin/sh", "-c", script, folder + "/etc-security", String(user.uid),
      setpriv, "--reuid", String(user.uid), "--regid", String(user.gid), "--clear-groups",
      bench, "--unprivileged-loop", String(counts.passcodePairs), "2", secret, pamtester, user.name,
      "wh-helper", "wh-unix",
    ]
    let environment = Spawn.baseEnvironment + services.wrapperAssignments
    let finished = Spawn.run(loop, environment: environment, logPath: output)
    let lines = (readText(output) ?? "").split(separator: "\n")
    let samples = PairedSamples(roundLines: lines)
    guard finished.exitCode == 0, !samples.subject.isEmpty else {
      throw SetupError("The unprivileged loop failed (exit \(finished.exitCode)): \(lines.suffix(3).joined(separator: " / "))")
    }
    let a = Summary(samples.subject)
    let b = Summary(samples.reference)
    let ratio = Summary(samples.ratios)
    let ms = { (s: Summary?) in s.map { fixed($0.median * 1e3, 1) } ?? "n/a" }
    report.figures.append(
      Figure(
        id: "7", name: "Unprivileged caller: localauth-helper vs pam_unix's unix_chkpwd (both yescrypt, cost \(cost))",
        ours: describe(a, scale: 1e3, unit: "ms"), reference: describe(b, scale: 1e3, unit: "ms"),
        comparison: describeRatio(ratio), target: "≤ 1.1×", verdict: verdict(ratio.map { $0.median <= 1.1 }),
        meaning: "A screen locker running as the user waits \(ms(a)) ms for pam_localauth through its setuid helper "
          + "against \(ms(b)) ms for pam_unix through unix_chkpwd, with the same secret at the same cost: the helper's "
          + "spawn, relay and state work cost no more than pam_unix's own helper.",
        json: .object([
          ("unit", .string("ms")), ("subject", a?.json(scale: 1e3) ?? .null), ("reference", b?.json(scale: 1e3) ?? .null),
          ("ratio", ratio?.json() ?? .null), ("failed_rounds", .number(Double(samples.failures))),
          ("target_ratio", .number(1.1)), ("yescrypt_cost", .number(Double(cost))),
        ])))
  }
}

/// `localauth-bench --unprivileged-loop ROUNDS WARMUP SECRET PAMTESTER USER SERVICE_A SERVICE_B`: run as the
/// benchmark user inside HelperBench's namespace; alternates the two services run by run and prints
/// `round A_SECONDS B_SECONDS` per round (or `failed A_EXIT B_EXIT`).
enum UnprivilegedLoop {
  static func main(_ arguments: [String]) -> Int32 {
    guard arguments.count == 7, let rounds = Int(arguments[0]), let warmUp = Int(arguments[1]) else { return 2 }
    let (secret, pamtester, user, first, second) = (arguments[2], arguments[3], arguments[4], arguments[5], arguments[6])
    let environment = ["PATH", "LANG", "LD_PRELOAD", "PAM_WRAPPER", "PAM_WRAPPER_SERVICE_DIR"].compactMap { name in
      getenv(name).map { name + "=" + String(cString: $0) }
    }
    for round in 0..<(warmUp + rounds) {
      var seconds = [0.0, 0.0]
      var exits: [Int32] = [0, 0]
      for step in 0..<2 {
        let k = (round + step) % 2
        let run = Spawn.run([pamtester, k == 0 ? first : second, user, "authenticate"], environment: environment, stdinPath: secret)
        seconds[k] = run.seconds
        exits[k] = run.exitCode
      }
      guard round >= warmUp else { continue }
      print(exits == [0, 0] ? "round \(seconds[0]) \(seconds[1])" : "failed \(exits[0]) \(exits[1])")
    }
    return 0
  }
}
