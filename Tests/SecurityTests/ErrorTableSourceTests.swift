import Foundation
import LocalAuthCore
import Testing

/// One table per error domain (issue 29): Apple's status codes live in Sources/LocalAuthCore/Keychain/SecStatus*.swift,
/// Apple's LAError codes in Sources/LocalAuthCore/Evaluation/AuthErrorCode.swift, and no other source file restates
/// their numbers or their sentences.
@Suite("Error tables: each number and sentence written once in Sources")
struct ErrorTableSourceTests {
  /// The table files, relative to the package root.
  static func isTable(_ path: String) -> Bool {
    path.hasPrefix("Sources/LocalAuthCore/Keychain/SecStatus") || path == "Sources/LocalAuthCore/Evaluation/AuthErrorCode.swift"
  }

  /// Every Swift file under Sources but the tables, as (path, lines).
  static func sources() throws -> [(String, [Substring])] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let sources = root.appendingPathComponent("Sources")
    guard let walk = FileManager.default.enumerator(atPath: sources.path) else { return [] }
    var files: [(String, [Substring])] = []
    for case let relative as String in walk where relative.hasSuffix(".swift") {
      let path = "Sources/" + relative
      guard !isTable(path) else { continue }
      let text = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
      files.append((path, text.split(separator: "\n", omittingEmptySubsequences: false)))
    }
    return files
  }

  /// The negative integer literals of a line (a `-` not after a word character, digits not followed by one).
  static func negativeLiterals(_ line: Substring) -> [Int] {
    var found: [Int] = []
    let chars = Array(line.utf8)
    func isWord(_ c: UInt8) -> Bool { c == UInt8(ascii: "_") || c == UInt8(ascii: ".") || (c >= 48 && c <= 57) || (c | 0x20 >= 97 && c | 0x20 <= 122) }
    var i = 0
    while i < chars.count {
      if chars[i] == UInt8(ascii: "-"), i + 1 < chars.count, chars[i + 1] >= 48, chars[i + 1] <= 57, i == 0 || !isWord(chars[i - 1]) {
        var j = i + 1
        var value = 0
        while j < chars.count, chars[j] >= 48, chars[j] <= 57, value < 1_000_000 { value = value * 10 + Int(chars[j] - 48); j += 1 }
        if j == chars.count || !isWord(chars[j]) { found.append(-value) }
        i = j
      } else {
        i += 1
      }
    }
    return found
  }

  @Test("no source file but the table restates an errSec number; LocalAuthentication and Security restate no LAError code")
  func numbersOnce() throws {
    let statuses = Set(SecStatusTable.entries.map { Int($0.code) }).subtracting([0])
    let laCodes = Set(AuthErrorCode.allCases.map(\.rawValue))
    var restated: [String] = []
    for (path, lines) in try Self.sources() {
      let apple = path.hasPrefix("Sources/LocalAuthentication/") || path.hasPrefix("Sources/Security/")
      for (n, line) in lines.enumerated() {
        for value in Self.negativeLiterals(line) where statuses.contains(value) || (apple && laCodes.contains(value)) {
          restated.append("\(path):\(n + 1): \(value)")
        }
      }
    }
    #expect(restated.isEmpty, "restated: \(restated)")
    #expect(Self.negativeLiterals("x = -25300; y = a-1, z = -1004.5, -50") == [-25300, -50])
  }

  @Test("no source file but the tables holds a status message or an LAError sentence as a string literal")
  func sentencesOnce() throws {
    var sentences = Set(SecStatusTable.entries.map { $0.message.description }.filter { !$0.isEmpty })
    for code in AuthErrorCode.allCases { sentences.formUnion([code.message, code.localizedDescription]) }
    var restated: [String] = []
    for (path, lines) in try Self.sources() {
      for (n, line) in lines.enumerated() {
        let literals = line.split(separator: "\"", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 1 }
        for (_, literal) in literals where sentences.contains(String(literal)) { restated.append("\(path):\(n + 1): \(literal)") }
      }
    }
    #expect(restated.isEmpty, "restated: \(restated)")
  }
}
