/// Whether a process runs a program the system installed, and its name: the kernel's word, never the caller's
/// (docs/HELPER.md, "What the helper believes").
///
/// A process runs a system program when all of these hold:
/// - /proc/PID/exe names a file in a system folder: directly in /usr/bin, /usr/sbin, /bin or /sbin, or anywhere
///   below /usr/libexec or /usr/lib (never /usr/local, /tmp or a home folder), with no " (deleted)" suffix;
/// - that path, looked up now, is the very file the process runs (same device and inode as /proc/PID/exe: a file
///   replaced since, or a bind mount in the caller's own mount namespace, is another file);
/// - the file is a regular file owned by root and not writable by group or others, and so is every folder above it;
/// - the process was started without LD_PRELOAD, LD_LIBRARY_PATH or LD_AUDIT (/proc/PID/environ, the environment
///   the loader read) and is not being traced (TracerPid 0 in /proc/PID/status).
///
/// The name (the path's last component) is what the administrator lists in `gui_services=`; argv[0] and the
/// process's comm are the caller's choice and are never read.
public enum SystemProgram {
  /// What stat(2) says of a file, as far as the check needs.
  public struct FileStatus: Equatable, Sendable {
    /// The owner's uid.
    package var owner: UInt32
    /// The mode: type and permission bits.
    package var mode: UInt32
    /// The device the file is on.
    package var device: UInt64
    /// The file's inode.
    package var inode: UInt64

    /// Describes a file.
    public init(owner: UInt32, mode: UInt32, device: UInt64, inode: UInt64) {
      self.owner = owner
      self.mode = mode
      self.device = device
      self.inode = inode
    }

    var isRegular: Bool { mode & 0o170000 == 0o100000 }
    var isDirectory: Bool { mode & 0o170000 == 0o040000 }
    /// Root-owned and not writable by group or others.
    var isRootsAlone: Bool { owner == 0 && mode & 0o022 == 0 }
  }

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
  /// Folders below which any file is a system program.
  static let libraryFolders = ["/usr/libexec/", "/usr/lib/"]
  /// The loader's variables that put other code into a program.
  static let loaderVariables = ["LD_PRELOAD=", "LD_LIBRARY_PATH=", "LD_AUDIT="]

  /// Whether process `pid` runs a system program, and its name.
  package static func check(_ pid: Int32, system: RequestVisibility.System) -> Verdict {
    guard pid >= 1, let path = system.readLink("/proc/\(pid)/exe") else {
      return Verdict(path: "", name: nil, reason: "the executable of process \(pid) cannot be read")
    }
    let shown = RemoteSession.printable(path)
    func refuse(_ why: String) -> Verdict {
      Verdict(path: path, name: nil, reason: "process \(pid) runs \(shown), \(why)")
    }
    guard let name = systemName(path) else { return refuse("which is not in a system folder") }
    guard let running = system.status("/proc/\(pid)/exe", true), let named = system.status(path, false),
      running.device == named.device, running.inode == named.inode
    else { return refuse("whose path no longer names the file it runs") }
    guard running.isRegular, running.isRootsAlone else {
      return refuse("which is not a regular file of root's that only root can write")
    }
    var folder = path
    while let slash = folder.utf8.lastIndex(of: UInt8(ascii: "/")) {
      folder = slash == folder.utf8.startIndex ? "/" : String(folder[..<slash])
      guard let status = system.status(folder, false), status.isDirectory, status.isRootsAlone else {
        return refuse("in folder \(RemoteSession.printable(folder)), which is not root's alone")
      }
      if folder == "/" { break }
    }
    guard let environment = system.read("/proc/\(pid)/environ", 1 << 20) else {
      return refuse("whose environment cannot be read")
    }
    for entry in environment.split(separator: 0) {
      for variable in loaderVariables where entry.starts(with: variable.utf8) {
        return refuse("started with \(variable.dropLast()) set")
      }
    }
    guard tracer(pid, system) == 0 else { return refuse("which is traced or whose tracer cannot be read") }
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

  /// The TracerPid of /proc/PID/status; nil when it cannot be read.
  static func tracer(_ pid: Int32, _ system: RequestVisibility.System) -> Int32? {
    guard let bytes = system.read("/proc/\(pid)/status", 16384) else { return nil }
    return ProcessFile.statusNumber("TracerPid:", in: bytes).flatMap { Int32(exactly: $0) }
  }

  /// readlink(2) of the running system.
  @Sendable package static func liveReadLink(_ path: String) -> String? {
    Syscalls.linkTarget(path, capacity: 4095)
  }

  /// stat(2) (`follow`) or lstat(2) of the running system.
  @Sendable package static func liveStatus(_ path: String, _ follow: Bool) -> FileStatus? {
    guard case .success(let info) = Syscalls.status(ofPath: path, followingLink: follow) else { return nil }
    return FileStatus(owner: info.owner, mode: info.typeAndMode, device: info.device, inode: info.inode)
  }
}
