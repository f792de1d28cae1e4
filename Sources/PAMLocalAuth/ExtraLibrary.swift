import CPAM
import CSyscalls
import LocalAuthCore

/// pam_localauth/extra.so: the module's rarely used parts, in a second Embedded library beside it, opened on first
/// use (docs/EMBEDDED.md). The installed module is built without them (`LOCALAUTH_HOT_MODULE`), so that a
/// simulated-finger sudo maps only the code it runs; an operation that needs one of them is run whole by the
/// library, which is the same module built with every part: the keychain lines (`capture_authtok`,
/// `release_authtok`), the passcode change, the relay to localauth-helper for an application that is not root, and
/// fprintd's sensor.
enum ExtraLibrary {
  /// The library's entry point; the number changes with its arguments, so that a module never calls a library
  /// from another build of a different shape.
  static let entrySymbol = "pam_localauth_extra_v1"
  /// The library's path relative to the module's folder.
  static let relativePath = "pam_localauth/extra.so"

  /// Whether `operation` with `options` needs a part that is only in the library. Decided before anything is
  /// read or written, so that the library runs the operation from its start.
  static func runs(_ operation: PAMEntry.Operation, _ options: Options) -> Bool {
    switch operation {
    case .changeAuthToken: true
    case .authenticate:
      options.keychain.captureAuthToken || options.keychain.releaseAuthToken || options.fprintd
        || PAMHandle.effectiveUserID != 0
    case .setCredentials, .accountManagement, .openSession, .closeSession: false
    }
  }

  /// Runs `operation` in the library with the module's own arguments; PAM_SYSTEM_ERR, with one log sentence, when
  /// the library is missing, unsafe or of another shape.
  static func run(
    _ operation: PAMEntry.Operation, handle: PAMHandle, flags: CInt, _ argc: CInt,
    _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
  ) -> CInt {
    switch entry() {
    case .success(let entry):
      return entry(operation.code, handle.raw, flags, argc, argv)
    case .failure(let refusal):
      handle.syslog(
        LOG_ERR,
        "pam_sm_\(operation.rawValue) needs pam_localauth's library \(relativePath) beside the module, which \(refusal.reason) "
          + "(PAM_SYSTEM_ERR).")
      return PAMResult.code(for: PAMFailure.extraLibraryUnusable)
    }
  }

  /// Why the library could not be used: the end of a sentence.
  struct Refusal: Error, CustomStringConvertible {
    let reason: String
    var description: String { reason }
  }

  /// The library's entry point, after the checks the module's own file passes: a regular file in a folder beside
  /// the module, each owned by root or by the module's owner and writable by no one else.
  static func entry() -> Result<cpam_extra_entry, Refusal> {
    guard let modulePath = PAMHandle.moduleFile() else {
      return .failure(Refusal(reason: "cannot be found: the loader does not name the module's own file"))
    }
    guard let slash = modulePath.utf8.lastIndex(of: UInt8(ascii: "/")) else {
      return .failure(Refusal(reason: "cannot be found: the module was loaded as \(modulePath), not by its path"))
    }
    let folder = String(modulePath[...slash]) + "pam_localauth"
    let path = String(modulePath[...slash]) + relativePath
    guard let module = ProcessFacts.live.status(modulePath, true) else {
      return .failure(Refusal(reason: "cannot be checked: \(modulePath) cannot be read"))
    }
    for (name, isFolder) in [(folder, true), (path, false)] {
      guard let info = ProcessFacts.live.status(name, false) else {
        return .failure(Refusal(reason: "is missing (\(name))"))
      }
      guard FileKind(mode: mode_t(info.mode)) == (isFolder ? .directory : .regular) else {
        return .failure(Refusal(reason: "is not \(isFolder ? "a folder" : "a regular file") (\(name))"))
      }
      guard info.owner == trustedOwner || info.owner == module.owner else {
        return .failure(Refusal(reason: "is owned by uid \(info.owner), neither root nor the module's owner (\(name))"))
      }
      guard info.mode & 0o022 == 0 else {
        return .failure(Refusal(reason: "is writable by its group or others (\(name))"))
      }
    }
    return PAMHandle.openLibrary(path, entry: entrySymbol).mapError { Refusal(reason: "could not be loaded from \(path): \($0)") }
  }
}

extension PAMEntry.Operation {
  /// The operation's number on the library's entry point; a number, once given, is never reused.
  var code: CInt {
    switch self {
    case .authenticate: 1
    case .setCredentials: 2
    case .accountManagement: 3
    case .changeAuthToken: 4
    case .openSession: 5
    case .closeSession: 6
    }
  }

  /// The operation numbered `code`, or nil.
  init?(code: CInt) {
    guard let operation = Self.allCases.first(where: { $0.code == code }) else { return nil }
    self = operation
  }
}
