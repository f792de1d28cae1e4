import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A background finger (Tests/scripts/fprintd-world.py feed): it prints one line per event, which `events` collects:
/// `READY`, `SIGNAL <member> <args…>` (booleans as true/false, for instance `SIGNAL VerifyStatus verify-match
/// true`), `SENT <command> [reply…]`, `PAUSED <ms>`, `DONE` (every command sent and the last one's status
/// seen), `TIMEOUT`, `UNREACHABLE <command>`.
final class Feeder: @unchecked Sendable {
  private let process: Process
  private let condition = NSCondition()
  private var lines: [String] = []
  private var ended = false
  private var stopped = false

  init(arguments: [String], environment: [String: String]) throws {
    process = Process()
    process.executableURL = URL(fileURLWithPath: FprintdWorld.python)
    process.arguments = arguments
    process.environment = Run.baseEnvironment.merging(environment) { $1 }
    let output = Pipe()
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let reader = output.fileHandleForReading
    Thread.detachNewThread { [self] in
      var pending = Data()
      while true {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        pending.append(chunk)
        while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
          let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
          pending.removeSubrange(pending.startIndex...newline)
          condition.withLock {
            lines.append(line)
            condition.broadcast()
          }
        }
      }
      condition.withLock {
        if !pending.isEmpty { lines.append(String(decoding: pending, as: UTF8.self)) }
        ended = true
        condition.broadcast()
      }
    }
  }

  /// Every line so far.
  var events: [String] { condition.withLock { lines } }
  /// The lines as one text (for failure messages).
  var transcript: String { events.joined(separator: "\n") }
  /// The statuses seen so far, such as ("verify-no-match", true).
  var statuses: [(result: String, done: Bool)] {
    events.compactMap { line in
      let words = line.split(separator: " ")
      guard words.count == 4, words[0] == "SIGNAL", words[1] == "VerifyStatus" || words[1] == "EnrollStatus" else { return nil }
      return (String(words[2]), words[3] == "true")
    }
  }
  /// The commands sent so far.
  var sent: [String] {
    events.filter { $0.hasPrefix("SENT ") }.map { String($0.dropFirst(5)) }
  }

  /// Waits until a line satisfies `predicate`; false on timeout or when the feeder ended without one.
  func wait(timeout: Double, for predicate: (String) -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    condition.lock()
    defer { condition.unlock() }
    while true {
      if lines.contains(where: predicate) { return true }
      if ended || !condition.wait(until: deadline) { return lines.contains(where: predicate) }
    }
  }

  /// Waits for READY.
  func waitReady(timeout: Double) throws {
    guard wait(timeout: timeout, for: { $0 == "READY" }) else {
      throw FprintdWorldError.failed("the feeder did not get ready", transcript)
    }
  }

  /// Waits until every command is sent and the last one's status came (DONE).
  @discardableResult
  func waitDone(timeout: Double = 10) -> Bool { wait(timeout: timeout) { $0 == "DONE" } }

  /// Ends the feeder (the commands not yet sent go nowhere) and waits for it. Safe to call twice.
  func stop() {
    let first: Bool = condition.withLock {
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    if process.isRunning { ProcessTree.kill(process.processIdentifier) }
    process.waitUntilExit()
    _ = wait(timeout: 2) { _ in false }
  }
}
