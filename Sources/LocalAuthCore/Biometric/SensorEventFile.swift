/// The text format of one event presented to a prompt (`<state>/prompts/<id>/*.event`): a capture, or a press
/// of Cancel or the fallback button, with the time it was presented.
package enum SensorEventFile {
  /// An event and when it was presented.
  package struct Entry: Equatable, Sendable {
    /// The event.
    package var event: SensorEvent
    /// When it was presented.
    package var created: WallTime

    /// Pairs an event with its time.
    package init(event: SensorEvent, created: WallTime) {
      self.event = event
      self.created = created
    }
  }

  static let header = "localauth-event 1"

  /// The file's text.
  package static func encode(_ entry: Entry) -> [UInt8] {
    var lines = [header, "created \(entry.created)"]
    switch entry.event {
    case .cancel: lines.append("kind cancel")
    case .fallback: lines.append("kind fallback")
    case .timeout: lines.append("kind timeout")
    // A reader's verdict never travels through the spool (decode refuses it): the simulated sensor gives none.
    case .reader: lines.append("kind reader")
    case .sample(let s):
      lines += ["kind sample", "modality \(s.modality.rawValue)", "quality \(s.quality)",
        "features " + FloatVectorText.encode(s.features)]
    }
    return Array((lines.joined(separator: "\n") + "\n").utf8)
  }

  /// Parses an event file; anything malformed is corruption.
  package static func decode(_ bytes: [UInt8], path: String) throws(StateError) -> Entry {
    let fields = try keyValueLines(bytes, header: header, path: path)
    guard let created = fields["created"].flatMap(Double.init), created.isFinite else {
      throw .corrupt(path: path, reason: "bad time")
    }
    let event: SensorEvent
    switch fields["kind"] {
    case "cancel": event = .cancel
    case "fallback": event = .fallback
    case "timeout": event = .timeout
    case "sample":
      guard let modality = fields["modality"].flatMap(Modality.init(rawValue:)),
        let quality = fields["quality"].flatMap(Double.init), quality.isFinite,
        let raw = fields["features"]
      else { throw .corrupt(path: path, reason: "bad sample") }
      guard let features = FloatVectorText.decode(raw, dimension: MatcherCalibration.dimension),
        features.allSatisfy({ $0.isFinite })
      else { throw .corrupt(path: path, reason: "bad features") }
      event = .sample(BiometricSample(modality: modality, quality: quality, features: features))
    default: throw .corrupt(path: path, reason: "unknown kind")
    }
    return Entry(event: event, created: WallTime(seconds: created))
  }
}
