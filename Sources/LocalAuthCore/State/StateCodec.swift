/// The on-disk text format of a user record: a versioned header, one `key value` line per field, then `end`.
///
/// Decoding is strict: an unknown key, a duplicate, a malformed number, a missing header or a missing `end`
/// line (a file cut anywhere, even at a line boundary) is corruption, and corruption fails closed. A later release that changes the format bumps `currentVersion` and migrates.
package enum StateCodec {
  /// The first word of every state file.
  package static let magic = "localauth-state"
  /// The format version this release writes.
  package static let currentVersion = 1
  /// The last line of every state file; without it the file was cut short.
  package static let endMarker = "end"
  /// The largest state file accepted.
  package static let maximumSize = 256 * 1024

  /// The keys that may appear at most once (every key but `feature`, `template`, `failure` and `reuse`).
  static let singleKeys = [
    "passcode.hash", "passcode.failures", "passcode.last-wrong", "passcode.next-allowed", "passcode.last-success",
    "passcode.last-success-boot", "biometry.failures", "biometry.last-success", "success.last", "enrollment.generation",
    "enrollment.domain-state", "enrollment.acknowledged", "app-password.failures", "app-password.next-allowed",
    "record.serial",
  ]

  /// Encodes a record, with the serial of a durable write when the store gives one (SuccessNote.swift).
  package static func encode(_ record: UserRecord, serial: String? = nil) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(2048 + 1536 * record.templates.count)
    func line(_ text: String) {
      bytes.append(contentsOf: text.utf8)
      bytes.append(UInt8(ascii: "\n"))
    }
    func put(_ key: String, _ value: String?) {
      guard let value else { return }
      bytes.append(contentsOf: key.utf8)
      bytes.append(UInt8(ascii: " "))
      line(value)
    }
    line("\(magic) \(currentVersion)")
    put("record.serial", serial)
    put("passcode.hash", record.passcodeHash)
    put("passcode.failures", String(record.passcodeFailures))
    put("passcode.last-wrong", record.lastWrongPasscodeHash)
    put("passcode.next-allowed", record.passcodeNextAllowed?.description)
    if record.applicationPasswordFailures > 0 { put("app-password.failures", String(record.applicationPasswordFailures)) }
    put("app-password.next-allowed", record.applicationPasswordNextAllowed?.description)
    put("passcode.last-success", record.lastPasscodeSuccess?.description)
    put("passcode.last-success-boot", record.lastPasscodeBootID)
    put("biometry.failures", String(record.biometricFailures))
    put("biometry.last-success", record.lastBiometricSuccess?.description)
    put("success.last", record.lastSuccess?.description)
    put("enrollment.generation", String(record.enrollmentGeneration))
    put("enrollment.domain-state", record.domainState)
    put("enrollment.acknowledged", record.acknowledgedDomainState)
    for r in record.reuseStamps {
      put("reuse", "\(r.at) \(r.bootID) \(r.domainState) \(r.requesterUID) \(field(r.scope)) \(r.purpose.token)")
    }
    for f in record.recentFailures {
      put("failure", "\(f.at) \(f.kind.rawValue) \(f.requesterUID) \(field(f.service)) \(field(f.tty)) \(field(f.remoteHost))")
    }
    for feature in record.features.sorted() { put("feature", feature) }
    for t in record.templates {
      put("template", "\(t.modality.rawValue) \(t.enrolledAt) \(t.name) " + FloatVectorText.encode(t.features))
    }
    line(endMarker)
    return bytes
  }

  /// An origin field as written: "-" for empty.
  static func field(_ text: String) -> String { text.isEmpty ? "-" : text }

  /// Decodes a record, naming `path` in any error.
  package static func decode(_ bytes: [UInt8], path: String) throws(StateError) -> UserRecord {
    var serial: String?
    return try decode(bytes, path: path, serial: &serial)
  }

  /// Decodes a record and the serial it was written with (nil when it has none).
  package static func decode(_ bytes: [UInt8], path: String, serial: inout String?) throws(StateError) -> UserRecord {
    guard bytes.count <= maximumSize else { throw .tooLarge(path: path, limit: maximumSize) }
    guard !bytes.isEmpty else { throw .corrupt(path: path, reason: "the file is empty") }
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw .corrupt(path: path, reason: "the file is not valid UTF-8")
    }
    guard bytes.last == UInt8(ascii: "\n") else { throw .corrupt(path: path, reason: "the file is truncated") }
    var lines = Array(text.fields(separatedBy: UInt8(ascii: "\n")).dropLast())
    guard !lines.isEmpty else { throw .corrupt(path: path, reason: "the header is missing") }
    let header = lines.removeFirst().fields(separatedBy: UInt8(ascii: " "))
    guard header.count == 2, header[0] == magic else { throw .corrupt(path: path, reason: "the header is missing") }
    guard header[1] == String(currentVersion) else { throw .unsupportedVersion(path: path, found: String(header[1].prefix(32))) }
    guard let last = lines.last, last == endMarker else { throw .corrupt(path: path, reason: "the file is truncated") }
    lines.removeLast()

    var record = UserRecord()
    var seen: UInt32 = 0  // one bit per key of `singleKeys` already read
    for (index, line) in lines.enumerated() {
      let lineNumber = index + 2
      func fail(_ why: String) -> StateError { .corrupt(path: path, reason: "line \(lineNumber): \(why)") }
      guard line != endMarker else { throw fail("text after the end line") }
      guard let space = line.firstIndex(ofByte: UInt8(ascii: " ")) else { throw fail("no value") }
      let key = line[..<space]
      let value = line[line.index(after: space)...]
      if key != "feature" && key != "template" && key != "failure" && key != "reuse" {
        if let slot = singleKeys.firstIndex(where: { key == $0 }) {
          guard seen & (1 << slot) == 0 else { throw fail("duplicate key \(key.prefix(40))") }
          seen |= 1 << slot
        }
      }
      // Every value the encoder can write decodes: any count from 0, any finite time (before 1970 too).
      func count() throws(StateError) -> Int {
        guard let n = Int(value), n >= 0 else { throw fail("bad count") }
        return n
      }
      func time(_ raw: Substring) throws(StateError) -> WallTime {
        guard let s = Double(raw), s.isFinite else { throw fail("bad time") }
        return WallTime(seconds: s)
      }
      func origin(_ raw: Substring) throws(StateError) -> String { raw == "-" ? "" : try token(raw) }
      func token(_ raw: Substring) throws(StateError) -> String {
        guard !raw.isEmpty, raw.utf8.count <= 512, !raw.contains(byte: UInt8(ascii: " ")) else { throw fail("bad value") }
        return String(raw)
      }
      switch key {
      case "record.serial": serial = try token(value)
      case "passcode.hash": record.passcodeHash = try token(value)
      case "passcode.failures": record.passcodeFailures = try count()
      case "passcode.last-wrong": record.lastWrongPasscodeHash = try token(value)
      case "passcode.next-allowed": record.passcodeNextAllowed = try time(value)
      case "app-password.failures": record.applicationPasswordFailures = try count()
      case "app-password.next-allowed": record.applicationPasswordNextAllowed = try time(value)
      case "passcode.last-success": record.lastPasscodeSuccess = try time(value)
      case "passcode.last-success-boot": record.lastPasscodeBootID = try token(value)
      case "biometry.failures": record.biometricFailures = try count()
      case "biometry.last-success": record.lastBiometricSuccess = try time(value)
      case "success.last": record.lastSuccess = try time(value)
      case "enrollment.generation": record.enrollmentGeneration = try count()
      case "enrollment.domain-state": record.domainState = try token(value)
      case "enrollment.acknowledged": record.acknowledgedDomainState = try token(value)
      case "reuse":
        let parts = value.fields(separatedBy: UInt8(ascii: " "))
        // A stamp without a requester and scope (written before windows were scoped) or without a purpose
        // (written before matches served only their purpose) is never honoured: it is read as no window.
        guard parts.count == 6 || parts.count == 5 || parts.count == 3 else { throw fail("bad reuse stamp") }
        let (at, boot, state) = (try time(parts[0]), try token(parts[1]), try token(parts[2]))
        guard parts.count == 6 else { break }
        guard let uid = UInt32(parts[3]), let purpose = ReusePurpose(token: parts[5]) else { throw fail("bad reuse stamp") }
        guard record.reuseStamp(for: purpose) == nil, record.reuseStamps.count < ReuseStamp.kept else {
          throw fail("too many or duplicate reuse stamps")
        }
        record.reuseStamps.append(
          ReuseStamp(at: at, bootID: boot, domainState: state, requesterUID: uid, scope: try origin(parts[4]), purpose: purpose))
      case "failure":
        let parts = value.fields(separatedBy: UInt8(ascii: " "))
        guard parts.count == 6, let kind = FailureEntry.Kind(rawValue: String(parts[1])), let uid = UInt32(parts[2]),
          record.recentFailures.count < FailureEntry.kept
        else { throw fail("bad failure") }
        let at = try time(parts[0])
        let from = RequestOrigin(
          service: try origin(parts[3]), tty: try origin(parts[4]), requesterUID: uid, remoteHost: try origin(parts[5]))
        record.recentFailures.append(FailureEntry(at: at, kind: kind, origin: from))
      case "feature":
        guard isValidItemName(String(value)), record.features.insert(String(value)).inserted else { throw fail("bad feature") }
      case "template":
        let parts = value.fields(separatedBy: UInt8(ascii: " "))
        guard parts.count == 4, let modality = Modality(rawValue: String(parts[0])), isValidItemName(String(parts[2])) else {
          throw fail("bad template")
        }
        let name = String(parts[2])
        let groups = 1 + parts[3].count(ofByte: UInt8(ascii: ","))
        guard groups == MatcherCalibration.dimension else { throw fail("bad template length") }
        guard let features = FloatVectorText.decode(parts[3], dimension: MatcherCalibration.dimension) else {
          throw fail("bad template value")
        }
        guard features.allSatisfy({ $0.isFinite && abs($0) <= 1 }) else { throw fail("bad template value") }
        guard !record.templates.contains(where: { $0.name == name }),
          record.templates.count < modality.maximumEnrolled
        else { throw fail("too many or duplicate templates") }
        record.templates.append(
          BiometricTemplate(name: name, modality: modality, features: features, enrolledAt: try time(parts[1])))
      default:
        throw fail("unknown key \(key.prefix(40))")
      }
    }
    return record
  }
}
