import ArgumentParser
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

extension LocalAuthCtl {
  /// Lists the biometric prompts waiting now: who asks, for whom, through which program, from where.
  struct Prompts: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "List the prompts waiting for a finger or face now.",
      discussion: """
        Each prompt shows its id (for `touch --prompt`), the user whose finger it asks for, the program \
        (PAM service), the terminal, the requesting process and its real user (for `su alice` typed by bob, \
        bob), and since when it waits. Prompts whose process is gone are removed as they are found. Only root \
        can list prompts: the runtime folder where they wait is root's alone.
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "Only the prompts for this user.") var user: String?
    @Flag(help: "Print JSON.") var json = false

    func validate() throws { if let user { _ = try userName(user) } }

    func run() throws {
      try reporting {
        // The runtime folder is root's alone: another user would see an empty folder and be told, wrongly, that
        // no prompt waits.
        guard geteuid() == 0 else {
          throw CommandFailure("Only root can list the waiting prompts: run prompts as root (effective uid is \(geteuid())).")
        }
        let context = try common.context()
        let waiting = try context.sensorAdmin.waitingPrompts(for: try user.map(userName))
        if json {
          let admin = context.sensorAdmin
          print(JSONValue.array(waiting.map { Self.object($0, conflict: admin.conflict(of: $0.id)) }).rendered())
        } else if waiting.isEmpty {
          print(user.map { "No prompt is waiting for \($0)." } ?? "No prompt is waiting.")
        } else {
          let now = context.dependencies.clock.now()
          let rows = [["ID", "USER", "SERVICE", "TTY", "REQUESTER", "PID", "WAITING", "TO APPROVE"]] + waiting.map { p in
            [
              p.id, p.user.value, p.origin.service, p.origin.tty.isEmpty ? "-" : p.origin.tty,
              "\(p.origin.requesterName)(\(p.origin.requesterUID))", String(p.origin.processID),
              "\(wholeSeconds(now.since(p.started)))s", p.origin.approval.isEmpty ? "-" : p.origin.approval,
            ]
          }
          print(StatusFormat.table(rows))
        }
      }
    }

    /// A prompt as JSON; `conflictWith` is the id of the request its conflict mark names ("" when it cannot be
    /// read), null when it has none.
    static func object(_ p: PromptAnnouncement, conflict: PromptRegistry.ConflictMark? = nil) -> JSONValue {
      let mark: JSONValue =
        switch conflict {
        case .marked(let other)?: .string(other?.id ?? "")
        case nil: .null
        }
      return .object([
        ("id", .string(p.id)), ("user", .string(p.user.value)), ("modality", .string(p.modality.rawValue)),
        ("service", .string(p.origin.service)), ("tty", .string(p.origin.tty)),
        ("requesterUid", .int(Int(p.origin.requesterUID))), ("requester", .string(p.origin.requesterName)),
        ("remoteHost", .string(p.origin.remoteHost)), ("pid", .int(Int(p.origin.processID))),
        ("started", .number(p.started.seconds)), ("approval", .string(p.origin.approval)), ("conflictWith", mark),
      ])
    }
  }
}
