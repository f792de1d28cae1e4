/// The harness's command line.
struct HarnessOptions {
  /// The folder holding the service file (`pam_start_confdir`'s confdir).
  var confdir = ""
  /// The PAM service name.
  var service = ""
  /// The user to authenticate.
  var user = ""
  /// Start with no user, so the module asks for it through the conversation (pam_get_user).
  var askUser = false
  /// Answers for prompts, in order.
  var answers: [String] = []
  /// Pass PAM_SILENT.
  var silent = false
  /// The PAM_RHOST item.
  var rhost: String?
  /// `NAME=VALUE` entries for the PAM environment (pam_putenv), such as SSH_CONNECTION.
  var pamEnvironment: [String] = []
  /// The operations, run in order on one handle.
  var operations: [Operation] = []
  /// Run this many pam_start/pam_authenticate/pam_end cycles instead, and report resident memory.
  var cycles: Int?
  /// Answer every message with a NULL response.
  var nullResponse = false
  /// Return PAM_CONV_AGAIN from every conversation call.
  var conversationAgain = false
  /// Set the real uid (the effective uid stays root), as for a setuid program such as passwd.
  var realUID: UInt32?

  /// The PAM calls the harness can make.
  enum Operation: String {
    case authenticate, chauthtok, setcred
    case openSession = "open_session"
    case closeSession = "close_session"
    case accountManagement = "acct_mgmt"
  }

  /// Why the command line was refused.
  struct UsageError: Error, CustomStringConvertible {
    let description: String
  }

  static let usage = """
    usage: PAMHarness --confdir DIR --service S (--user U | --ask-user) [--answer TEXT]... [--silent] [--rhost H]
                      [--pam-env NAME=VALUE]... [--op authenticate|chauthtok|setcred|open_session|close_session|acct_mgmt]...
                      [--cycles N] [--null-response] [--conv-again] [--real-uid UID]
    """

  /// Parses the arguments after the program name.
  static func parse(_ arguments: [String]) throws -> HarnessOptions {
    var options = HarnessOptions()
    var rest = arguments[...]
    func value(_ flag: String) throws -> String {
      guard let next = rest.popFirst() else { throw UsageError(description: "\(flag) needs a value") }
      return next
    }
    while let flag = rest.popFirst() {
      switch flag {
      case "--confdir": options.confdir = try value(flag)
      case "--service": options.service = try value(flag)
      case "--user": options.user = try value(flag)
      case "--answer": options.answers.append(try value(flag))
      case "--silent": options.silent = true
      case "--ask-user": options.askUser = true
      case "--rhost": options.rhost = try value(flag)
      case "--pam-env": options.pamEnvironment.append(try value(flag))
      case "--null-response": options.nullResponse = true
      case "--conv-again": options.conversationAgain = true
      case "--op":
        let name = try value(flag)
        guard let operation = Operation(rawValue: name) else { throw UsageError(description: "unknown operation \(name)") }
        options.operations.append(operation)
      case "--cycles":
        let text = try value(flag)
        guard let n = Int(text), n > 0 else { throw UsageError(description: "--cycles needs a positive count") }
        options.cycles = n
      case "--real-uid":
        let text = try value(flag)
        guard let uid = UInt32(text) else { throw UsageError(description: "--real-uid needs a uid") }
        options.realUID = uid
      default: throw UsageError(description: "unknown argument \(flag)")
      }
    }
    guard !options.confdir.isEmpty, !options.service.isEmpty, !options.user.isEmpty || options.askUser else {
      throw UsageError(description: "--confdir, --service and --user (or --ask-user) are required")
    }
    if options.operations.isEmpty { options.operations = [.authenticate] }
    return options
  }
}
