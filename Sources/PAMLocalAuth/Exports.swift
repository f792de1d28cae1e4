import CPAM

// The six PAM entry points. Each forwards to PAMEntry.run and holds no logic: a Swift error or trap must
// never cross into sshd or sudo, and the linker's version script keeps every other symbol local.

/// Authenticates the user under the configured policy (`pam_sm_authenticate(3)`).
@_cdecl("pam_sm_authenticate")
public func pam_sm_authenticate(
  _ pamh: OpaquePointer?, _ flags: CInt, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> CInt { PAMEntry.run(.authenticate, pamh, flags, argc, argv) }

/// Establishes no credentials: the module has none (`pam_sm_setcred(3)`).
@_cdecl("pam_sm_setcred")
public func pam_sm_setcred(
  _ pamh: OpaquePointer?, _ flags: CInt, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> CInt { PAMEntry.run(.setCredentials, pamh, flags, argc, argv) }

/// Manages no accounts: always ignored (`pam_sm_acct_mgmt(3)`).
@_cdecl("pam_sm_acct_mgmt")
public func pam_sm_acct_mgmt(
  _ pamh: OpaquePointer?, _ flags: CInt, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> CInt { PAMEntry.run(.accountManagement, pamh, flags, argc, argv) }

/// Changes the user's passcode, passwd-style (`pam_sm_chauthtok(3)`).
@_cdecl("pam_sm_chauthtok")
public func pam_sm_chauthtok(
  _ pamh: OpaquePointer?, _ flags: CInt, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> CInt { PAMEntry.run(.changeAuthToken, pamh, flags, argc, argv) }

/// Opens a session: nothing to do (`pam_sm_open_session(3)`).
@_cdecl("pam_sm_open_session")
public func pam_sm_open_session(
  _ pamh: OpaquePointer?, _ flags: CInt, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> CInt { PAMEntry.run(.openSession, pamh, flags, argc, argv) }

/// Closes a session: ends the user's reuse window (`pam_sm_close_session(3)`).
@_cdecl("pam_sm_close_session")
public func pam_sm_close_session(
  _ pamh: OpaquePointer?, _ flags: CInt, _ argc: CInt, _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> CInt { PAMEntry.run(.closeSession, pamh, flags, argc, argv) }
