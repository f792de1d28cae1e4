import CPAM
import CSyscalls

// The benchmark's floor (make bench, figures 1d and 3b): the least a PAM module written in Swift does, linked
// exactly like pam_localauth.so (Embedded Swift). It reads the user and its arguments as Strings, reads the small file its
// `conf=` argument names into an array, splits it into lines, and answers PAM_SUCCESS. What pam_localauth
// costs beyond this is the cost of its own work; what this costs beyond pam_permit is the cost of Swift.
// It is never installed.

/// The floor's authentication: user, arguments, one small file, its lines; PAM_SUCCESS.
@_cdecl("pam_sm_authenticate")
public func floorAuthenticate(
  _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
  var user: UnsafePointer<CChar>? = nil
  guard let handle, pam_get_user(handle, &user, nil) == PAM_SUCCESS, let user else { return PAM_AUTH_ERR }
  let name = String(cString: user)
  var arguments: [String] = []
  for i in 0..<Int(max(argc, 0)) { if let argument = argv?[i] { arguments.append(String(cString: argument)) } }
  guard let path = arguments.first(where: { $0.hasPrefix("conf=") }).map({ String($0.dropFirst(5)) }) else { return PAM_AUTH_ERR }
  let fd = csyscalls_open(path, O_RDONLY | O_CLOEXEC, 0)
  guard fd >= 0 else { return PAM_AUTH_ERR }
  defer { close(fd) }
  var bytes = [UInt8](repeating: 0, count: 4096)
  let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
  guard count >= 0 else { return PAM_AUTH_ERR }
  let lines = String(decoding: bytes[0..<count], as: UTF8.self).split(separator: "\n")
  return name.isEmpty || lines.count > 4096 ? PAM_AUTH_ERR : PAM_SUCCESS
}

/// The floor's credentials: nothing to set.
@_cdecl("pam_sm_setcred")
public func floorSetcred(
  _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
  PAM_SUCCESS
}

/// The floor's account check: not its business.
@_cdecl("pam_sm_acct_mgmt")
public func floorAccount(
  _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
  PAM_IGNORE
}

/// The floor's password change: not its business.
@_cdecl("pam_sm_chauthtok")
public func floorChangeToken(
  _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
  PAM_IGNORE
}

/// The floor's session start: not its business.
@_cdecl("pam_sm_open_session")
public func floorOpenSession(
  _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
  PAM_IGNORE
}

/// The floor's session end: not its business.
@_cdecl("pam_sm_close_session")
public func floorCloseSession(
  _ handle: OpaquePointer?, _ flags: Int32, _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> Int32 {
  PAM_IGNORE
}
