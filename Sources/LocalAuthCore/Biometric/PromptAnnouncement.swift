/// A biometric prompt that waits for a user: who it is for, who asks and from where, and since when.
///
/// Written to `<state>/prompts/<id>/prompt` while the prompt waits, so that `localauthctl prompts` can list it
/// and `localauthctl touch` can present a finger to exactly this prompt (docs/RULES.md, "Touch delivery").
public struct PromptAnnouncement: Equatable, Sendable {
  /// The prompt's id: 8 lowercase hexadecimal digits.
  package var id: String
  /// The user whose finger or face is asked for.
  package var user: UserName
  /// The sensor kind the prompt waits on.
  package var modality: Modality
  /// Who asks and from where.
  package var origin: RequestOrigin
  /// The process that waits (the module's host, such as su); the prompt lives as long as it does.
  package var waiterPID: Int32
  /// The waiting process's start time in clock ticks since boot (/proc/PID/stat), so that a reused pid is
  /// never taken for the prompt's process.
  package var processStart: UInt64
  /// When the prompt started waiting.
  package var started: WallTime

  /// Describes a waiting prompt.
  public init(
    id: String, user: UserName, modality: Modality, origin: RequestOrigin, waiterPID: Int32, processStart: UInt64,
    started: WallTime
  ) {
    self.id = id
    self.user = user
    self.modality = modality
    self.origin = origin
    self.waiterPID = waiterPID
    self.processStart = processStart
    self.started = started
  }

  /// True for an id of the form the registry gives (so that an id never names a path outside the folder).
  package static func isValidID(_ id: String) -> Bool {
    id.utf8.count == 8 && id.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
  }

  static let header = "localauth-prompt 1"

  /// The announcement file's text.
  func encode() -> [UInt8] {
    let lines = [
      Self.header, "id \(id)", "user \(user.value)", "modality \(modality.rawValue)",
      "service \(field(origin.service))", "tty \(field(origin.tty))", "requester-uid \(origin.requesterUID)",
      "requester \(field(origin.requesterName))", "remote-host \(field(origin.remoteHost))",
      "session \(field(origin.loginSession))", "pid \(origin.processID)", "waiter-pid \(waiterPID)",
      "waiter-start \(processStart)",
      "started \(started)", "approval \(field(origin.approval))",
    ]
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// Parses an announcement file; any missing or malformed field is corruption.
  static func decode(_ bytes: [UInt8], path: String) throws(StateError) -> PromptAnnouncement {
    let fields = try keyValueLines(bytes, header: header, path: path)
    func value(_ key: String) throws(StateError) -> String {
      guard let text = fields[key] else { throw .corrupt(path: path, reason: "no \(key)") }
      return text == "-" ? "" : text
    }
    guard let id = fields["id"], isValidID(id),
      let user = try? UserName(try value("user")),
      let modality = Modality(rawValue: try value("modality")),
      let uid = UInt32(try value("requester-uid")),
      let pid = Int32(try value("pid")),
      let waiterPID = Int32(try value("waiter-pid")),
      let processStart = UInt64(try value("waiter-start")),
      let started = Double(try value("started")), started.isFinite
    else { throw .corrupt(path: path, reason: "a malformed field") }
    var origin = RequestOrigin(
      service: try value("service"), tty: try value("tty"), requesterUID: uid, requesterName: try value("requester"),
      remoteHost: try value("remote-host"), processID: pid, loginSession: try value("session"))
    // Written since the intent rules; an announcement of an older module has none.
    if let approval = fields["approval"], approval != "-" { origin.approval = approval }
    return PromptAnnouncement(
      id: id, user: user, modality: modality, origin: origin, waiterPID: waiterPID, processStart: processStart,
      started: WallTime(seconds: started))
  }

  private func field(_ text: String) -> String { text.isEmpty ? "-" : text }
}

/// The `key value` lines of a small file after its `header` line; a duplicate key or a line without a value
/// is corruption.
func keyValueLines(_ bytes: [UInt8], header: String, path: String) throws(StateError) -> [String: String] {
  guard let text = String(validating: bytes, as: UTF8.self) else { throw .corrupt(path: path, reason: "not UTF-8") }
  let lines = text.fields(separatedBy: UInt8(ascii: "\n")).filter { !$0.isEmpty }
  guard lines.first == header[...] else { throw .corrupt(path: path, reason: "bad header") }
  var fields: [String: String] = [:]
  for line in lines.dropFirst() {
    guard let space = line.firstIndex(ofByte: UInt8(ascii: " ")) else { throw .corrupt(path: path, reason: "bad line") }
    let key = String(line[..<space])
    guard fields[key] == nil else { throw .corrupt(path: path, reason: "duplicate \(key.prefix(32))") }
    fields[key] = String(line[line.index(after: space)...])
  }
  return fields
}
