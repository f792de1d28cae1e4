import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The built programs the integration tests drive, named by LOCALAUTH_MODULE, LOCALAUTH_CTL and LOCALAUTH_HARNESS.
enum Artifacts {
  private static let environment = ProcessInfo.processInfo.environment

  /// The module in its installed shape (build/pam_localauth.so).
  static let module = environment["LOCALAUTH_MODULE"] ?? ""
  /// The admin tool (build/localauthctl).
  static let ctl = environment["LOCALAUTH_CTL"] ?? ""
  /// The pam_start_confdir driver (build/PAMHarness).
  static let harness = environment["LOCALAUTH_HARNESS"] ?? ""
  /// localauth-helper in its installed shape (build/localauth-helper), named by LOCALAUTH_HELPER.
  static let helper = environment["LOCALAUTH_HELPER"] ?? ""
  /// True when the helper is built as well, and a private mount namespace can be made (the helper reads only
  /// /etc/security/localauth.conf: the tests bind their own over it, never changing the system's).
  static let helperAvailable: Bool =
    available && !helper.isEmpty && FileManager.default.isExecutableFile(atPath: helper)
    && LoginSuEnvironment.namespaces
  /// Debian's pamtester.
  static let pamtester = "/usr/bin/pamtester"

  /// True when the three artefacts exist and the tests run as root (they create users and root-owned state).
  static let available: Bool =
    !module.isEmpty && FileManager.default.fileExists(atPath: module)
    && [ctl, harness].allSatisfy { !$0.isEmpty && FileManager.default.isExecutableFile(atPath: $0) }
    && getuid() == 0

  /// True when pamtester and pam_wrapper are installed as well.
  static let pamtesterAvailable: Bool =
    available && FileManager.default.isExecutableFile(atPath: pamtester)
    && PAMServiceFolder.wrapperInstalled

  /// Why the tests are skipped.
  static let skipMessage: Comment =
    "Real-PAM tests skipped: set LOCALAUTH_MODULE, LOCALAUTH_CTL and LOCALAUTH_HARNESS to the built files and run as root (make test does both)."
}
