import ArgumentParser
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// Options every subcommand shares: where the state is and which configuration file to read.
struct CommonOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp("The state folder (default: state_dir from the configuration, else /var/lib/localauth).", valueName: "dir"))
  var stateDir: String?

  @Option(
    name: .long,
    help: ArgumentHelp(
      "The folder of waiting prompts (default: runtime_dir from the configuration, else /run/localauth beside the default state folder, else the state folder).",
      valueName: "dir"))
  var runtimeDir: String?

  @Option(
    name: .long,
    help: ArgumentHelp("The configuration file (default: /etc/security/localauth.conf when it exists).", valueName: "file"))
  var conf: String?

  @Option(
    name: .long,
    help: ArgumentHelp("The sensor: touchid, faceid, fprintd or none (default: sensor from the configuration).", valueName: "kind"))
  var sensor: String?

  func validate() throws {
    if stateDir == "" { throw ValidationError("--state-dir needs a folder.") }
    if runtimeDir == "" { throw ValidationError("--runtime-dir needs a folder.") }
    if conf == "" { throw ValidationError("--conf needs a file.") }
  }

  /// The module arguments that stand for these options (`conf=`), made absolute.
  var moduleArguments: [String] { (conf.map { ["conf=" + absolutePath($0)] } ?? []) + (sensor.map { ["sensor=" + $0] } ?? []) }

  /// The effective options: defaults, the configuration file, then `--state-dir` and `--runtime-dir`; warnings go
  /// to stderr.
  func options() throws -> Options {
    let parsed = try OptionParser.parse(arguments: moduleArguments)
    for warning in parsed.warnings { printError("Warning: \(warning)") }
    var options = parsed.options
    applyFolders(to: &options)
    return options
  }

  /// `--state-dir` and `--runtime-dir`, made absolute, over what the configuration says.
  func applyFolders(to options: inout Options) {
    if let stateDir { options.stateDirectory = absolutePath(stateDir) }
    if let runtimeDir { options.runtimeDirectory = absolutePath(runtimeDir) }
  }

  /// The collaborators every command works through, over the effective options.
  func context(prompter: AuthPrompter? = nil, log: AuthLog = NullLog()) throws -> CommandContext {
    let options = try options()
    return CommandContext(
      options: options, dependencies: .live(options, prompter: prompter ?? TerminalPrompter(standardInputFallback: true), log: log))
  }
}

/// The effective options and the core's collaborators for one command.
struct CommandContext {
  /// The effective options.
  var options: Options
  /// Clock, store, sensor, prompter and log.
  var dependencies: Dependencies

  /// The administrator's operations, with the configured rules (hash cost, minimum length).
  var admin: Administration {
    Administration(
      store: dependencies.store, clock: dependencies.clock, settings: options.evaluation, keychain: dependencies.keychain)
  }

  /// The simulated sensor's administration: its world seed in the state folder, its prompts in the runtime folder.
  var sensorAdmin: SensorAdministration {
    SensorAdministration(stateRoot: options.stateDirectory, runtimeRoot: options.runtimeRoot, clock: dependencies.clock)
  }
}

/// `path` made absolute against the current directory.
func absolutePath(_ path: String) -> String {
  if path.hasPrefix("/") { return path }
  var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
  guard getcwd(&buffer, buffer.count) != nil else { return path }
  let cwd = String(decoding: buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
  return (cwd == "/" ? "" : cwd) + "/" + path
}
