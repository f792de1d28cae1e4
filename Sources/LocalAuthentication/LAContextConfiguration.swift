import Foundation
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Linux-only: where a context evaluates — whose authentication, against which state, sensor and UI.
///
/// Apple has no equivalent (an iOS context always means "the device owner"). Tests build one from the
/// core's test doubles; `LAContextConfiguration.system()` is what a plain `LAContext()` uses.
/// It is `@unchecked Sendable` because every `Dependencies` member in this package is either stateless
/// or guards its state with a lock.
public struct LAContextConfiguration: @unchecked Sendable {
  /// The clock, state store, sensor, prompter and log.
  public var dependencies: Dependencies
  /// The evaluation rules (Apple's values by default).
  public var settings: EvaluationSettings
  /// The user whose owner authentication is evaluated.
  public var user: String
  /// True for a remote session, where biometry is never offered.
  public var remote: Bool
  /// Who asks: this program, its real user and terminal (named on prompts, the reuse window's scope).
  public var origin: RequestOrigin

  /// Describes an environment.
  public init(
    dependencies: Dependencies, settings: EvaluationSettings = EvaluationSettings(), user: String, remote: Bool = false,
    origin: RequestOrigin = RequestOrigin()
  ) {
    self.dependencies = dependencies
    self.settings = settings
    self.user = user
    self.remote = remote
    self.origin = origin
  }

  /// Why the system configuration could not be built.
  public enum SetupError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The calling user (effective uid) has no passwd entry.
    case unknownCaller(uid: UInt32)
    /// The configuration file could not be read or parsed.
    case configuration(String)
    /// The process is not root's: its contexts evaluate through localauth-helper, not in this process.
    case throughHelper

    public var description: String {
      switch self {
      case .unknownCaller(let uid): "The calling user (uid \(uid)) has no passwd entry."
      case .configuration(let why): "The LocalAuthentication configuration is not usable: \(why)."
      case .throughHelper: "This process is not root's: its contexts evaluate through localauth-helper."
      }
    }
  }

  /// The system environment: the calling user (getpwuid(geteuid())), the settings of
  /// /etc/security/localauth.conf when present, the state in its `state_dir` (default /var/lib/localauth),
  /// the simulated spool sensor, prompts on the controlling terminal (/dev/tty), and remote when
  /// `RemoteSession` says the process runs in a network login.
  public static func system(prompter: AuthPrompter = TerminalPrompter()) throws -> LAContextConfiguration {
    let uid = geteuid()
    guard let entry = getpwuid(uid), let namePointer = entry.pointee.pw_name else {
      throw SetupError.unknownCaller(uid: uid)
    }
    let user = String(cString: namePointer)
    let options: Options
    do {
      options = try OptionParser.parse(arguments: []).options
    } catch {
      throw SetupError.configuration("\(error)")
    }
    let environment = ProcessInfo.processInfo.environment
    let remote = RemoteSession.detectCurrent(
      tty: terminalName(), environment: { environment[$0] }, runtimeRoot: options.runtimeRoot
    ).isRemote
    return LAContextConfiguration(
      dependencies: .live(options, prompter: prompter, log: NullLog()),
      settings: options.evaluation, user: user, remote: remote,
      origin: .current(service: ProcessInfo.processInfo.processName, tty: RequestOrigin.standardInputTerminal()))
  }

  /// The terminal of standard input, output or error ("/dev/pts/3"); empty when none is one.
  static func terminalName() -> String {
    for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] {
      if let name = ttyname(descriptor) { return String(cString: name) }
    }
    return ""
  }
}
