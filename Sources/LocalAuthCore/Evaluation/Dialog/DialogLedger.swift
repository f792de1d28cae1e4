/// The dialogs localauth-helper opened through polkit for apps without a terminal (issue 39), and the polkit-1
/// authentications pam_localauth ran while each was open: how the helper learns whether the dialog's yes came from
/// the finger. `<runtime>/dialogs/<id>/dialog` is the helper's announcement; `run-<pid>` beside it is written by the
/// module inside polkit's agent helper (PAM service polkit-1) at its start and again at its end, with the method that
/// succeeded. Root's folders (0700) on tmpfs: nothing here is the user's word, and nothing outlives a boot.
///
/// A touch carries nothing that says which request it is for (docs/RULES.md, "One finger request at a time"): the
/// yes counts as the finger only when exactly one polkit-1 authentication ran while the dialog was open and the
/// module matched the finger in it. Anything else (none: a stack without the module, or a rule that said yes; two:
/// another polkit request at the same moment, or a second try) counts as the passcode.
package struct DialogLedger: Sendable {
  /// The runtime folder (Options.runtimeRoot).
  package let root: String

  /// The ledger of a runtime folder.
  package init(root: String) { self.root = root }

  /// The PAM service of polkit's agent helper, whose authentications are recorded.
  package static let service = "polkit-1"

  /// The folder holding every open dialog.
  package var folder: String { root + "/dialogs" }

  /// A dialog the helper keeps open for an app.
  package struct Dialog: Equatable, Sendable {
    /// Its folder's name.
    package var id: String
    /// The user asked.
    package var user: UserName
    /// The helper that waits for the answer, and its start time: a dialog whose helper is gone is stale.
    package var helperPID: Int32
    package var helperStart: UInt64
    /// The app whose request it shows.
    package var appPID: Int32
  }

  /// One polkit-1 authentication that ran while a dialog was open.
  package struct Run: Equatable, Sendable {
    /// The process that ran it (polkit-agent-helper-1).
    package var processID: Int32
    /// True once the module's authentication returned.
    package var ended: Bool
    /// How the module authenticated the user in it; nil when it did not (a later module of the stack may have).
    package var method: AuthMethod?
    /// True when the user cancelled in it (Cancel at the passcode prompt, the agent's conversation gone): pkttyagent
    /// and lxpolkit do not tell polkitd that a dialog was dismissed, so the helper learns it here.
    package var cancelled = false

    /// Describes a run.
    package init(processID: Int32, ended: Bool, method: AuthMethod?, cancelled: Bool = false) {
      self.processID = processID
      self.ended = ended
      self.method = method
      self.cancelled = cancelled
    }
  }

  static let header = "localauth-dialog 1"

  /// Opens a dialog for `user`'s app `appPID`, waited for by this process.
  package func open(user: UserName, appPID: Int32) throws(StateError) -> Dialog {
    try FileSyscalls.checkTrustedAncestors(of: root, role: "the runtime folder")
    try FileSyscalls.ensureDirectory(root)
    try FileSyscalls.ensureDirectory(folder)
    var random = SystemRandomNumberGenerator()
    for _ in 0..<16 {
      let id = String(String(random.next() as UInt32, radix: 16).leftPadded(to: 8).suffix(8))
      let path = folder + "/" + id
      guard try FileSyscalls.createDirectory(path) else { continue }
      let pid = Syscalls.processID
      let dialog = Dialog(
        id: id, user: user, helperPID: pid, helperStart: FileSyscalls.processStartTime(pid) ?? 0, appPID: appPID)
      let text = [
        Self.header, "user \(user.value)", "helper-pid \(pid)", "helper-start \(dialog.helperStart)", "app-pid \(appPID)",
      ]
      try FileSyscalls.atomicWrite(
        Array((text.joined(separator: "\n") + "\n").utf8), directory: path, name: "dialog", flushFolder: false,
        flushFile: false)
      return dialog
    }
    throw .io(path: folder, operation: "choose a dialog id in", errno: 17)
  }

  /// The dialogs open now for `user`, whose helper still runs.
  package func open(for user: UserName) -> [Dialog] {
    guard (try? FileSyscalls.checkTrustedAncestors(of: folder, role: "the runtime folder")) != nil,
      FileSyscalls.exists(folder), (try? FileSyscalls.checkTrustedDirectory(folder)) != nil,
      let ids = try? FileSyscalls.listDirectory(folder)
    else { return [] }
    var found: [Dialog] = []
    for id in ids where PromptAnnouncement.isValidID(id) {
      let path = folder + "/" + id + "/dialog"
      guard let bytes = try? FileSyscalls.readTrustedFile(path, limit: 1024),
        let fields = try? keyValueLines(bytes, header: Self.header, path: path),
        let name = fields["user"], let owner = try? UserName(name), owner == user,
        let helper = fields["helper-pid"].flatMap({ Int32($0) }), let start = fields["helper-start"].flatMap({ UInt64($0) }),
        let app = fields["app-pid"].flatMap({ Int32($0) }), FileSyscalls.processStartTime(helper) == start
      else { continue }
      found.append(Dialog(id: id, user: owner, helperPID: helper, helperStart: start, appPID: app))
    }
    return found
  }

  /// Records in every dialog open for `user` that process `pid` starts a polkit-1 authentication; returns them.
  package func beginRun(user: UserName, processID pid: Int32) -> [Dialog] {
    let dialogs = open(for: user)
    for dialog in dialogs { write(Run(processID: pid, ended: false, method: nil), in: dialog) }
    return dialogs
  }

  /// Records how the authentication `beginRun` announced in `dialogs` ended.
  package func endRun(in dialogs: [Dialog], processID pid: Int32, method: AuthMethod?, cancelled: Bool = false) {
    for dialog in dialogs { write(Run(processID: pid, ended: true, method: method, cancelled: cancelled), in: dialog) }
  }

  private func write(_ run: Run, in dialog: Dialog) {
    let text =
      "\(Self.header)\nended \(run.ended ? "yes" : "no")\nmethod \(run.method?.rawValue ?? "-")\n"
      + "cancelled \(run.cancelled ? "yes" : "no")\n"
    try? FileSyscalls.atomicWrite(
      Array(text.utf8), directory: folder + "/" + dialog.id, name: "run-\(run.processID)", flushFolder: false,
      flushFile: false)
  }

  /// Closes `dialog`: no run is recorded in it from now on; returns the runs it saw. A run file that cannot be
  /// read counts as a run that did not end.
  package func close(_ dialog: Dialog) -> [Run] {
    let path = folder + "/" + dialog.id
    try? FileSyscalls.remove(path + "/dialog")
    var runs: [Run] = []
    for name in (try? FileSyscalls.listDirectory(path)) ?? [] {
      let file = path + "/" + name
      defer { _ = try? FileSyscalls.claim(file) }
      guard name.hasPrefix("run-"), let pid = Int32(name.dropFirst(4)) else { continue }
      guard let bytes = try? FileSyscalls.readTrustedFile(file, limit: 1024),
        let fields = try? keyValueLines(bytes, header: Self.header, path: file)
      else {
        runs.append(Run(processID: pid, ended: false, method: nil))
        continue
      }
      runs.append(
        Run(
          processID: pid, ended: fields["ended"] == "yes", method: fields["method"].flatMap { AuthMethod(rawValue: $0) },
          cancelled: fields["cancelled"] == "yes"))
    }
    _ = try? FileSyscalls.removeDirectory(path)
    return runs.sorted { $0.processID < $1.processID }
  }
}
