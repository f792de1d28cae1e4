/// The one JSON writer (localauthctl's `--json` output, the benchmark's report): objects keep their key order,
/// strings are escaped per RFC 8259. No Foundation.
package enum JSONValue {
  case null
  case bool(Bool)
  case int(Int)
  case number(Double)
  case string(String)
  case array([JSONValue])
  case object([(String, JSONValue)])

  /// An optional string, or null.
  package static func string(_ value: String?) -> JSONValue { value.map { .string($0) } ?? .null }

  /// The value as JSON text; `indent` > 0 pretty-prints with that many spaces per level.
  package func rendered(indent: Int = 2) -> String {
    var out = ""
    write(to: &out, indent: indent, level: 0)
    return out
  }

  private func write(to out: inout String, indent: Int, level: Int) {
    let newline = indent > 0 ? "\n" : ""
    let pad = { (n: Int) in String(repeating: " ", count: indent * n) }
    switch self {
    case .null: out += "null"
    case .bool(let b): out += b ? "true" : "false"
    case .int(let i): out += String(i)
    case .number(let d):
      if !d.isFinite {
        out += "null"
      } else if d == d.rounded(), abs(d) < 1e15 {
        out += String(Int(d))
      } else {
        out += String(d)
      }
    case .string(let s): out += Self.quoted(s)
    case .array(let items):
      guard !items.isEmpty else {
        out += "[]"
        return
      }
      out += "[" + newline
      for (i, item) in items.enumerated() {
        out += pad(level + 1)
        item.write(to: &out, indent: indent, level: level + 1)
        out += (i < items.count - 1 ? "," : "") + newline
      }
      out += pad(level) + "]"
    case .object(let members):
      guard !members.isEmpty else {
        out += "{}"
        return
      }
      out += "{" + newline
      for (i, (key, value)) in members.enumerated() {
        out += pad(level + 1) + Self.quoted(key) + (indent > 0 ? ": " : ":")
        value.write(to: &out, indent: indent, level: level + 1)
        out += (i < members.count - 1 ? "," : "") + newline
      }
      out += pad(level) + "}"
    }
  }

  /// `s` as a JSON string literal.
  package static func quoted(_ s: String) -> String { jsonQuoted(s) }
}
