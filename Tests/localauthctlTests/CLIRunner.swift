import Foundation
import LocalAuthTestSupport
import Testing

/// What one run of the built `localauthctl` printed and how it exited.
struct CLIResult {
  var stdout: String
  var stderr: String
  var status: Int32
}

/// Runs the built binary (env LOCALAUTH_CTL, else .build/debug/localauthctl) against a private state folder.
final class CLIRunner: @unchecked Sendable {
  /// The binary under test.
  static let binary: String = {
    if let path = ProcessInfo.processInfo.environment["LOCALAUTH_CTL"], !path.isEmpty { return path }
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    return root.appendingPathComponent(".build/debug/localauthctl").path
  }()

  /// A fresh 0700 temporary folder, removed by `cleanUp()`.
  let folder: String
  /// The state folder inside it (created by the binary on first write).
  var stateDir: String { folder + "/state" }
  /// An empty configuration file, so that the tests never read the machine's.
  var emptyConf: String { folder + "/empty.conf" }

  /// The binary tests need root: the state folder must belong to root, and `touch` is root-only.
  static var isRoot: Bool { geteuid() == 0 }

  init() throws {
    folder = try TemporaryFolder.make("/tmp/localauthctl-test.XXXXXX")
  }

  /// Removes the temporary folder.
  func cleanUp() { TemporaryFolder.remove(folder) }

  /// Runs `localauthctl args… --state-dir <state>` (unless `stateDir` is false), feeding `input` on stdin.
  @discardableResult
  func run(_ args: [String], input: String? = nil, stateDir: Bool = true, asNobody: Bool = false) throws -> CLIResult {
    let process = Process()
    var arguments = args + (stateDir ? ["--state-dir", self.stateDir] : [])
    // Keep the machine's /etc/security/localauth.conf out of the tests: an empty file of our own instead.
    if !asNobody && !args.contains("--conf") && !args.contains(where: { $0.hasPrefix("conf=") }) {
      if !FileManager.default.fileExists(atPath: emptyConf) { try write("", to: emptyConf, mode: 0o644) }
      arguments += ["--conf", emptyConf]
    }
    if asNobody {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
      arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", "--", Self.binary] + arguments
    } else {
      process.executableURL = URL(fileURLWithPath: Self.binary)
    }
    process.arguments = arguments
    let out = Pipe()
    let err = Pipe()
    let inPipe = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = inPipe
    try process.run()
    if let input { inPipe.fileHandleForWriting.write(Data(input.utf8)) }
    try inPipe.fileHandleForWriting.close()
    let errData = ErrorCollector(err.fileHandleForReading)
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return CLIResult(
      stdout: String(decoding: outData, as: UTF8.self), stderr: String(decoding: errData.wait(), as: UTF8.self),
      status: process.terminationStatus)
  }

  /// Starts `runs` one after another on another thread (touches that wait for a prompt, say); `finish()` returns
  /// their results.
  func background(_ runs: [[String]]) -> BackgroundRuns {
    let pending = BackgroundRuns()
    Thread.detachNewThread { [self] in
      pending.complete(runs.map { (try? run($0)) ?? CLIResult(stdout: "", stderr: "could not start", status: -1) })
    }
    return pending
  }

  /// `status USER --json`, decoded.
  func statusJSON(_ user: String) throws -> [String: Any] {
    let result = try run(["status", user, "--json"])
    #expect(result.status == 0, "status failed: \(result.stderr)")
    let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8))
    return try #require(object as? [String: Any])
  }

  /// Writes a file with `mode`.
  func write(_ text: String, to path: String, mode: Int = 0o600) throws {
    try text.write(toFile: path, atomically: false, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
  }
}

/// Reads a pipe to its end on another thread, so a full stderr pipe cannot block the child.
final class ErrorCollector: @unchecked Sendable {
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread.detachNewThread { [self] in
      data = handle.readDataToEndOfFile()
      done.signal()
    }
  }

  func wait() -> Data {
    done.wait()
    return data
  }
}

/// Runs started by `CLIRunner.background(_:)`.
final class BackgroundRuns: @unchecked Sendable {
  private var results: [CLIResult] = []
  private let done = DispatchSemaphore(value: 0)

  func complete(_ results: [CLIResult]) {
    self.results = results
    done.signal()
  }

  /// Waits (at most 60 s) for every run to end.
  func finish() -> [CLIResult] {
    _ = done.wait(timeout: .now() + 60)
    return results
  }
}
