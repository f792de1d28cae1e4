import Foundation

/// The outcome of running a program to completion.
struct ProcessRun {
  /// The exit status (or 128 + signal).
  let status: Int32
  /// Standard output.
  let stdout: String
  /// Standard error.
  let stderr: String

  /// Standard output's lines.
  var stdoutLines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { !$0.isEmpty } }
}

/// Why a program could not be run.
enum ProcessRunError: Error, CustomStringConvertible {
  case timedOut(String)
  case failed(String, ProcessRun)

  var description: String {
    switch self {
    case .timedOut(let command): "\(command) did not finish in time"
    case .failed(let command, let run): "\(command) exited \(run.status): \(run.stderr)"
    }
  }
}

/// Runs programs with a clean environment (no SSH_* variables from the developer's session), a standard
/// input, captured output and a time limit, so a hung PAM conversation fails the test instead of the run.
enum Run {
  /// The environment every child gets, plus what a call adds.
  static let baseEnvironment = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C"]

  @discardableResult
  static func program(
    _ executable: String, _ arguments: [String], stdin: String? = nil, environment: [String: String] = [:],
    timeout: Double = 60
  ) throws -> ProcessRun {
    ignoreBrokenPipes
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = baseEnvironment.merging(environment) { $1 }
    let outputFolder = FileManager.default.temporaryDirectory.appendingPathComponent("localauth-run-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: outputFolder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: outputFolder) }
    let outURL = outputFolder.appendingPathComponent("stdout")
    let errURL = outputFolder.appendingPathComponent("stderr")
    _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
    _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
    let out = try FileHandle(forWritingTo: outURL)
    let err = try FileHandle(forWritingTo: errURL)
    process.standardOutput = out
    process.standardError = err
    let input = Pipe()
    process.standardInput = stdin == nil ? FileHandle.nullDevice : input
    try process.run()
    if let stdin {
      // EPIPE (the child did not read) is not the test's failure: the child's exit status says what happened.
      try? input.fileHandleForWriting.write(contentsOf: Data(stdin.utf8))
      try? input.fileHandleForWriting.close()
    }
    let finished = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
      process.waitUntilExit()
      finished.signal()
    }
    if finished.wait(timeout: .now() + timeout) == .timedOut {
      process.terminate()
      process.waitUntilExit()
      throw ProcessRunError.timedOut(([executable] + arguments).joined(separator: " "))
    }
    try out.close()
    try err.close()
    let stdoutText = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
    let stderrText = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
    return ProcessRun(status: process.terminationStatus, stdout: stdoutText, stderr: stderrText)
  }

  /// A child that exits without reading its standard input (localauth-helper refusing a pipe) must not kill the
  /// test process with SIGPIPE when its input is written: the write fails with EPIPE instead.
  private static let ignoreBrokenPipes: Void = { _ = signal(SIGPIPE, SIG_IGN) }()

  /// Runs a program that must succeed.
  @discardableResult
  static func checked(_ executable: String, _ arguments: [String], stdin: String? = nil) throws -> ProcessRun {
    let run = try program(executable, arguments, stdin: stdin)
    guard run.status == 0 else { throw ProcessRunError.failed(([executable] + arguments).joined(separator: " "), run) }
    return run
  }
}
