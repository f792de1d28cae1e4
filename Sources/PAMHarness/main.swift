import CPAM

#if canImport(Glibc)
import Glibc
#endif

// PAMHarness: a test-only PAM application. It loads a service from a private folder with
// pam_start_confdir (Linux-PAM 1.5.2), answers prompts from the command line and prints every message
// and the result, so tests can assert exact codes and texts with no change under /etc/pam.d.

let options: HarnessOptions
do {
  options = try HarnessOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
  printError("PAMHarness: \(error)\n\(HarnessOptions.usage)")
  exit(2)
}

if let uid = options.realUID, setreuid(uid, 0) != 0 {
  printError("PAMHarness: setreuid(\(uid), 0) failed: \(String(cString: strerror(errno)))")
  exit(2)
}

let flags: CInt = options.silent ? CInt(PAM_SILENT) : 0
let conversation = Conversation(
  answers: options.answers, nullResponse: options.nullResponse, conversationAgain: options.conversationAgain)

if let cycles = options.cycles {
  exit(CycleRun(options: options, conversation: conversation, flags: flags).run(cycles))
}

var conv = conversation.makeConv()
var handle: OpaquePointer?
let started = pam_start_confdir(options.service, options.askUser ? nil : options.user, &conv, options.confdir, &handle)
guard started == PAM_SUCCESS, let pamh = handle else {
  print("result: \(ResultNames.name(started)) (\(started)) pam_start_confdir failed")
  exit(1)
}
if let rhost = options.rhost { _ = pam_set_item(pamh, PAM_RHOST, rhost) }
for entry in options.pamEnvironment { _ = pam_putenv(pamh, entry) }

var last: CInt = PAM_SUCCESS
var allSucceeded = true
for operation in options.operations {
  let code = perform(operation, pamh, flags)
  print("result: \(ResultNames.name(code)) (\(code)) \(String(cString: pam_strerror(pamh, code)))")
  last = code
  if code != PAM_SUCCESS { allSucceeded = false }
}
pam_end(pamh, last)
exit(allSucceeded ? 0 : 1)

/// Calls one PAM function on the handle.
func perform(_ operation: HarnessOptions.Operation, _ pamh: OpaquePointer, _ flags: CInt) -> CInt {
  switch operation {
  case .authenticate: pam_authenticate(pamh, flags)
  case .chauthtok: pam_chauthtok(pamh, flags)
  case .setcred: pam_setcred(pamh, flags | CInt(PAM_ESTABLISH_CRED))
  case .openSession: pam_open_session(pamh, flags)
  case .closeSession: pam_close_session(pamh, flags)
  case .accountManagement: pam_acct_mgmt(pamh, flags)
  }
}

/// Writes one line to standard error.
func printError(_ line: String) {
  let bytes = Array((line + "\n").utf8)
  _ = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
}
