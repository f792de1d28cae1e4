import LocalAuthCore

/// The real reader behind `sensor=fprintd`, as `status` and `list` show it.
struct ReaderLine {
  let description: Result<(name: String, scanType: String, fingers: [String]), FprintdError>

  init(user: UserName, sensor: FprintdSensor) { description = sensor.describe(for: user) }

  /// "Reader: Virtual device for debugging (press), through fprintd; enrolled: right-index-finger."
  var text: String {
    switch description {
    case .failure(let error): "Reader: not available through fprintd (\(error))."
    case .success(let reader):
      "Reader: \(reader.name) (\(reader.scanType)), through fprintd; enrolled: "
        + (reader.fingers.isEmpty ? "nothing" : reader.fingers.joined(separator: ", ")) + "."
    }
  }

  var json: JSONValue {
    switch description {
    case .failure(let error): .object([("backend", .string("fprintd")), ("error", .string(error.description))])
    case .success(let reader):
      .object([
        ("backend", .string("fprintd")), ("name", .string(reader.name)), ("scanType", .string(reader.scanType)),
        ("fingers", .array(reader.fingers.map { .string($0) })),
      ])
    }
  }
}
