import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Parses module arguments and the configuration file exactly as the module does, and prints the result.
  struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "check-config",
      abstract: "Check module arguments and the configuration file, and print the effective options.",
      discussion: """
        ARGS are module arguments as on a PAM line (policy=biometrics timeout=10 conf=/etc/x.conf debug). \
        Unknown keys are warned about and ignored, as the module does; a malformed value of a known key is \
        an error (exit status 1), as it is a PAM_SERVICE_ERR in the module. It also warns when the kernel \
        lets a user's programs trace each other (Yama absent, or kernel.yama.ptrace_scope 0), which the \
        intent rules cannot see.
        """)

    @OptionGroup var common: CommonOptions
    @Argument(help: "Module arguments, key=value.") var arguments: [String] = []
    /// Where Yama's setting is read; the tests give a file of their own.
    @Option(help: .hidden) var ptraceScopeFile: String = PtraceReach.scopeFile

    func run() throws {
      try reporting {
        let parsed = try OptionParser.parse(
          arguments: common.moduleArguments + arguments, readFile: ConfigFileReader.read)
        for warning in parsed.warnings { printError("Warning: \(warning)") }
        if let warning = PtraceReach.read(ptraceScopeFile).warning(path: ptraceScopeFile) { printError(warning) }
        var options = parsed.options
        common.applyFolders(to: &options)
        for line in options.settingLines { print(line) }
      }
    }
  }
}
