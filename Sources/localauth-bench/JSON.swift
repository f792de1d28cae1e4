import LocalAuthCore

/// A JSON value with ordered object keys, enough to write build/bench.json without Foundation.
indirect enum JSON {
  case null
  case bool(Bool)
  case number(Double)
  case string(String)
  case array([JSON])
  case object([(String, JSON)])

  /// The value as indented JSON text.
  func rendered(indent: String = "") -> String {
    let inner = indent + "  "
    switch self {
    case .null: return "null"
    case .bool(let b): return b ? "true" : "false"
    case .number(let n):
      guard n.isFinite else { return "null" }
      if n == n.rounded(), abs(n) < 1e15 { return String(Int64(n)) }
      return String(n)
    case .string(let s): return Self.quote(s)
    case .array(let items):
      if items.isEmpty { return "[]" }
      return "[\n" + items.map { inner + $0.rendered(indent: inner) }.joined(separator: ",\n") + "\n" + indent + "]"
    case .object(let fields):
      if fields.isEmpty { return "{}" }
      return "{\n"
        + fields.map { inner + Self.quote($0.0) + ": " + $0.1.rendered(indent: inner) }.joined(separator: ",\n")
        + "\n" + indent + "}"
    }
  }

  static func quote(_ s: String) -> String { jsonQuoted(s) }
}
