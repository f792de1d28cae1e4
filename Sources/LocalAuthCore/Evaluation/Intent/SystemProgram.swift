/// Whether a process runs a program the system installed, and nothing else, and its name: the kernel's word,
/// never the caller's (docs/HELPER.md, "What the helper believes"; docs/THREATS.md).
///
/// A process runs a system program when all of these hold:
/// - /proc/PID/exe names a file in a system folder: directly in /usr/bin, /usr/sbin, /bin or /sbin, or anywhere
///   below /usr/libexec or /usr/lib (never /usr/local, /tmp or a home folder), with no " (deleted)" suffix;
/// - that path, looked up now, is the very file the process runs (same device and inode as /proc/PID/exe: a file
///   replaced since, or a bind mount in the caller's own mount namespace, is another file);
/// - the file is a regular file owned by root and not writable by group or others, and so is every folder above it;
/// - every executable mapping in /proc/PID/maps is such a file too, below /usr/lib or a program folder (a library
///   put in with LD_PRELOAD, LD_AUDIT or dlopen is there, whatever the process later writes over its environment;
///   its device and inode must be the file's the path names now); an executable mapping backed by no file (code
///   written at run time) is refused, but for the kernel's [vdso] and [vsyscall];
/// - the process is not being traced (TracerPid 0 in /proc/PID/status).
///
/// The name (the path's last component) is what the administrator lists in `gui_services=` and
/// `terminal_programs=`; argv[0], COMM and the environment are the caller's choice and are never read.
public enum SystemProgram {
  /// What stat(2) says of a file (ProcessFacts).
  package typealias FileStatus = ProcessFacts.FileStatus

  /// The decision and the facts behind it.
  public struct Verdict: Equatable, Sendable {
    /// The executable's path as the kernel names it; empty when /proc/PID/exe cannot be read.
    package var path: String
    /// The program's name (the path's last component) when it is a system program; nil otherwise.
    package var name: String?
    /// Why, as a phrase for the one log line.
    package var reason: String

    /// Describes a decision.
    public init(path: String, name: String?, reason: String) {
      self.path = path
      self.name = name
      self.reason = reason
    }

    /// The name a request of this process goes by: the program's name when it is a system program, else its full
    /// path (or "/proc/PID/exe" when that cannot be read or is not absolute), which holds a '/' and so never
    /// equals a service name (a PAM service is a file name in /etc/pam.d).
    package func serviceName(pid: Int32) -> String {
      if let name { return name }
      return path.hasPrefix("/") ? path : "/proc/\(pid)/exe"
    }
  }

  /// Folders whose direct entries are system programs.
  static let programFolders = ["/usr/bin/", "/usr/sbin/", "/bin/", "/sbin/"]
  /// Folders below which any file is a system program or library.
  static let libraryFolders = ["/usr/libexec/", "/usr/lib/"]
  /// Executable mappings the kernel makes that no file backs.
  static let kernelMappings = ["[vdso]", "[vsyscall]"]
  /// The most executable mappings examined; a process with more is not judged a system program.
  static let maximumMappings = 1024

  /// Whether process `pid` runs a system program, and its name, read through `facts`.
  package static func check(_ pid: Int32, system facts: ProcessFacts) -> Verdict {
    ProcessSnapshot(facts).systemProgram(pid)
  }

  /// Whether process `pid` of `snapshot` runs a system program (ProcessSnapshot.systemProgram remembers it).
  static func verdict(_ pid: Int32, _ snapshot: ProcessSnapshot) -> Verdict {
    let facts = snapshot.facts
    guard pid >= 1, let path = snapshot.executable(pid) else {
      return Verdict(path: "", name: nil, reason: "the executable of process \(pid) cannot be read")
    }
    let shown = LogText.token(path)
    func refuse(_ why: String) -> Verdict {
      Verdict(path: path, name: nil, reason: "process \(pid) runs \(shown), \(why)")
    }
    guard let name = systemName(path) else { return refuse("which is not in a system folder") }
    guard let running = facts.status("/proc/\(pid)/exe", true), let named = facts.status(path, false),
      running.device == named.device, running.inode == named.inode
    else { return refuse("whose path no longer names the file it runs") }
    var trusted = TrustedFiles(facts: facts)
    if let why = trusted.refusal(path, running) { return refuse(why) }
    guard let maps = facts.read("/proc/\(pid)/maps", 1 << 20) else { return refuse("whose mappings cannot be read") }
    var examined = 0
    for mapping in ProcessMaps.executableMappings(maps) {
      examined += 1
      guard examined <= maximumMappings else { return refuse("with more than \(maximumMappings) executable mappings") }
      if mapping.inode == 0 {
        if kernelMappings.contains(mapping.path) { continue }
        return refuse("with executable memory no file backs (code written at run time)")
      }
      let mapped = LogText.token(mapping.path)
      guard systemName(mapping.path) != nil else { return refuse("with \(mapped) mapped, which is not in a system folder") }
      guard let file = facts.status(mapping.path, false), file.inode == mapping.inode,
        file.device == mapping.device
      else { return refuse("with \(mapped) mapped, whose path no longer names the mapped file") }
      if let why = trusted.refusal(mapping.path, file) { return refuse("with \(mapped) mapped, \(why)") }
    }
    guard snapshot.tracer(pid) == 0 else { return refuse("which is traced or whose tracer cannot be read") }
    return Verdict(path: path, name: name, reason: "process \(pid) runs system program \(shown)")
  }

  /// The program's name when `path` is a plain absolute path in a system folder; nil otherwise.
  static func systemName(_ path: String) -> String? {
    // Absolute, with no empty, "." or ".." component, and not a deleted file.
    let components = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
    guard path.hasPrefix("/"), !path.hasSuffix(" (deleted)"),
      components.allSatisfy({ !$0.isEmpty && !$0.elementsEqual(".".utf8) && !$0.elementsEqual("..".utf8) })
    else { return nil }
    let inProgramFolder = programFolders.contains { folder in
      path.hasPrefix(folder) && !path.dropFirst(folder.count).contains("/")
    }
    let inLibraryFolder = libraryFolders.contains { path.hasPrefix($0) }
    guard inProgramFolder || inLibraryFolder else { return nil }
    guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
    let name = String(path[path.utf8.index(after: slash)...])
    return name.isEmpty ? nil : name
  }

  /// Files and folders judged root's alone, each folder once per verdict.
  struct TrustedFiles {
    let facts: ProcessFacts
    var folders: [String] = []

    /// Why `path` (whose status is `file`) is not a regular file that root alone can write, in folders that
    /// root alone can write; nil when it is.
    mutating func refusal(_ path: String, _ file: FileStatus) -> String? {
      guard file.isRegular, file.isRootsAlone else { return "which is not a regular file of root's that only root can write" }
      var folder = path
      while let slash = folder.utf8.lastIndex(of: UInt8(ascii: "/")) {
        folder = slash == folder.utf8.startIndex ? "/" : String(folder[..<slash])
        if folders.contains(folder) { return nil }
        guard let status = facts.status(folder, false), status.isDirectory, status.isRootsAlone else {
          return "in folder \(LogText.token(folder)), which is not root's alone"
        }
        folders.append(folder)
        if folder == "/" { break }
      }
      return nil
    }
  }
}
