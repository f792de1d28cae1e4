// The state folder's trust, with FileSyscalls.checkTrustedDirectory (System/FileSyscalls.swift): the folders above the state folder. Checking the state
// folder alone is not enough: whoever may rename entries in a folder above it can move the whole tree aside
// and put one of their own in its place between two checks.

extension FileSyscalls {
  /// The most symbolic links followed among the ancestors (the kernel allows 40; /var/run → /run needs one).
  static let maximumAncestorLinks = 8

  /// Checks every folder from / down to the one holding `path`, without opening anything: each must belong to
  /// root and not be writable by group or others, unless it is sticky (/tmp), where nobody else can rename or
  /// remove root's entries — OpenSSH's rule for the paths it trusts, plus the sticky exception.
  ///
  /// A symbolic link among them (/var/run → /run) is accepted only when root owns it, since its folder is
  /// checked already and only root could have made it; the walk then goes on through the folders it names,
  /// checked the same way, so the folders the kernel will really pass through are the ones checked. A missing
  /// folder ends the walk: the open or mkdir that follows reports it. A relative path starts at the working
  /// folder (getcwd gives its physical path). `role` names the checked folder in the refusal ("the state folder",
  /// "the runtime folder").
  package static func checkTrustedAncestors(of path: String, role: String = "the state folder") throws(StateError) {
    var start = path
    if !path.hasPrefix("/") {
      let folder: String
      switch Syscalls.workingDirectory() {
      case .success(let found): folder = found
      case .failure(let error): throw .io(path: path, operation: "find the folder of", errno: error.code)
      }
      start = folder + "/" + path
    }
    // The names still to walk, the last one (the state folder itself) left to checkTrustedDirectory.
    var pending = ArraySlice(components(start).dropLast())
    var current = ""  // the folder reached so far, with no link in it; "" is /
    var links = 0
    try checkAncestor("/", role: role)
    while let name = pending.popFirst() {
      if name == "." { continue }
      if name == ".." {
        current = String(current[..<(current.lastIndex(of: "/") ?? current.startIndex)])
        continue
      }
      let next = current + "/" + name
      let st: Status
      switch Syscalls.status(ofPath: next) {
      case .success(let found): st = found
      case .failure(let error):
        if error == .noEntry { return }
        if error == .accessDenied { throw .permissionDenied(path: next) }
        throw .io(path: next, operation: "stat", errno: error.code)
      }
      if st.kind == .symbolicLink {
        guard st.owner == trustedOwner else {
          throw .insecure(
            path: next, reason: "it is above \(role) and is a symbolic link owned by uid \(st.owner), not root")
        }
        links += 1
        guard links <= maximumAncestorLinks, let target = Syscalls.linkTarget(next) else {
          throw .insecure(
            path: next, reason: "it is above \(role) and leads through too many or unreadable symbolic links")
        }
        if target.hasPrefix("/") { current = "" }
        pending = ArraySlice(components(target) + pending)
        continue
      }
      guard st.kind == .directory else {
        throw .insecure(path: next, reason: "it is above \(role) and is not a directory")
      }
      try checkAncestor(st, path: next, role: role)
      current = next
    }
  }

  /// Checks the root folder itself.
  private static func checkAncestor(_ path: String, role: String) throws(StateError) {
    switch Syscalls.status(ofPath: path) {
    case .success(let st): try checkAncestor(st, path: path, role: role)
    case .failure(let error): throw .io(path: path, operation: "stat", errno: error.code)
    }
  }

  /// Root's, and not writable by group or others unless sticky.
  private static func checkAncestor(_ st: Status, path: String, role: String) throws(StateError) {
    guard st.owner == trustedOwner else {
      throw .insecure(path: path, reason: "it is above \(role) and owned by uid \(st.owner), not root")
    }
    let mode = st.mode
    let sticky: UInt32 = 0o1000  // S_ISVTX
    guard mode & 0o022 == 0 || mode & sticky != 0 else {
      throw .insecure(
        path: path,
        reason: "it is above \(role) and writable by group or others without the sticky bit "
          + "(mode \(String(mode, radix: 8)))")
    }
  }

  /// The non-empty names of a path, in order.
  private static func components(_ path: String) -> [String] {
    path.split(separator: "/").map(String.init)
  }
}
