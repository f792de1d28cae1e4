import CPAM

// pam_localauth/extra.so's one export (ExtraLibrary): the module built with every part runs a whole PAM operation
// that the installed module handed over, with PAM's own handle and arguments. Not part of the installed module.

/// Runs the PAM operation numbered `operation` (`PAMEntry.Operation.code`); PAM_SERVICE_ERR for an unknown number.
@_cdecl("pam_localauth_extra_v1")
public func pam_localauth_extra_v1(
  _ operation: CInt, _ pamh: OpaquePointer?, _ flags: CInt, _ argc: CInt,
  _ argv: UnsafeMutablePointer<UnsafePointer<CChar>?>?
) -> CInt {
  guard let operation = PAMEntry.Operation(code: operation) else { return PAMResult.code(for: PAMFailure.badArguments) }
  return PAMEntry.run(operation, pamh, flags, argc, argv)
}
