import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A background program of the world, its output in a log file. `stop()` ends it and every descendant.
final class WorldProcess: @unchecked Sendable {
  let name: String
  let logPath: String
  private let process: Process
  private let lock = NSLock()
  private var stopped = false

  init(name: String, executable: String, arguments: [String], environment: [String: String], log: String) throws {
    self.name = name
    logPath = log
    process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = Run.baseEnvironment.merging(environment) { $1 }
    _ = FileManager.default.createFile(atPath: log, contents: nil)
    let output = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = output
    process.standardError = output
    try process.run()
    try? output.close()
  }

  var pid: Int32 { process.processIdentifier }
  var isRunning: Bool { process.isRunning }

  /// Polls `check` every 50 ms until it holds, failing early if the program exits.
  func waitUntil(_ what: String, timeout: Double, _ check: () throws -> Bool) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while true {
      if (try? check()) == true { return }
      if !process.isRunning {
        throw FprintdWorldError.died(name, (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
      }
      if Date() >= deadline { throw FprintdWorldError.timedOut(what) }
      usleep(50_000)
    }
  }

  /// SIGKILL to the program and every descendant, then reaps it. Safe to call twice.
  ///
  /// Not SIGTERM: children of the test process inherit a signal mask that blocks it (seen in /proc/<pid>/status
  /// SigBlk under swift-testing: Foundation's Process does not reset the mask), so it would stay pending forever.
  func stop() {
    let first: Bool = lock.withLock {
      defer { stopped = true }
      return !stopped
    }
    guard first else { return }
    if process.isRunning { ProcessTree.kill(pid) }
    process.waitUntilExit()
  }
}

/// The process tree, read from /proc.
enum ProcessTree {
  /// Every descendant of `pid` (children, their children, …).
  static func descendants(of pid: Int32) -> [Int32] {
    var children: [Int32: [Int32]] = [:]
    for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
      guard let child = Int32(entry), let parent = parentOf(child) else { continue }
      children[parent, default: []].append(child)
    }
    var result: [Int32] = []
    var queue = children[pid] ?? []
    while let next = queue.popLast() {
      result.append(next)
      queue += children[next] ?? []
    }
    return result
  }

  /// The fields of /proc/<pid>/stat after the command name: state, ppid, …
  private static func stat(_ pid: Int32) -> [Substring]? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
      let close = text.range(of: ")", options: .backwards)
    else { return nil }
    return text[close.upperBound...].split(separator: " ")
  }

  static func parentOf(_ pid: Int32) -> Int32? { stat(pid).flatMap { $0.count > 1 ? Int32($0[1]) : nil } }

  /// SIGKILL to `pid` and all its descendants (found before any dies, so none escapes to init), then waits up to
  /// `timeout` seconds until none is left (zombies count as gone).
  static func kill(_ pid: Int32, timeout: Double = 5) {
    let family = descendants(of: pid) + [pid]
    for member in family where alive(member) { _ = Glibc.kill(member, SIGKILL) }
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline, family.contains(where: alive) { usleep(5_000) }
  }

  /// True while the process exists and is not a zombie.
  static func alive(_ pid: Int32) -> Bool {
    guard let fields = stat(pid), let state = fields.first else { return false }
    return state != "Z" && state != "X"
  }
}
