/// The processes around one request, as the kernel describes them, read once each through `ProcessFacts` and kept
/// for the rest of the decision: the one process model of the caller's-process rules (RemoteSession,
/// RequestVisibility, TerminalWatch, SystemProgram), which are functions over it.
///
/// Every fact is read on first use and remembered, so that a rule asking again costs nothing and all rules of one
/// decision see the same state. A snapshot serves one decision; a later check (the wait's re-check) takes a new one.
package final class ProcessSnapshot {
  /// The fields of /proc/PID/stat the rules use.
  package struct Stat: Equatable, Sendable {
    /// COMM: the command name (the process's own choice: never evidence of what it runs).
    package var name: String
    /// The parent's pid.
    package var parent: Int32
    /// The process group.
    package var group: Int32
    /// The terminal session (its leader's pid).
    package var session: Int32
    /// The controlling terminal's device number (`tty_nr`); 0 for none.
    package var terminal: Int32
    /// The terminal's foreground process group (`tpgid`); -1 without a terminal.
    package var foregroundGroup: Int32

    /// "pts/3", "tty2", or "terminal MAJOR:MINOR".
    package var terminalName: String { TerminalDevice.name(terminal) }
    /// True when the process has a controlling terminal and is in its foreground process group.
    package var isInForeground: Bool { terminal != 0 && foregroundGroup == group }
  }

  /// One open descriptor: its number and what /proc/PID/fd/N links to.
  package struct Descriptor: Equatable, Sendable {
    package var number: Int32
    package var target: String
  }

  /// The most processes listed in a scan of /proc; a system with more is not scanned whole.
  package static let maximumProcesses = 8192
  /// The most descriptors examined in one process.
  package static let maximumDescriptors = 4096

  /// The seam the facts come through.
  package let facts: ProcessFacts
  /// What has been read of each process; a field is nil until read, and holds nil when it could not be read.
  /// One table for every fact, so that the module carries one dictionary's code, not one per fact.
  private struct Known {
    var stat: Stat??
    var realUID: UInt32??
    var executable: String??
    var descriptors: [Descriptor]??
    var program: SystemProgram.Verdict?
  }
  private var known: [Int32: Known] = [:]
  private var scanned: [Int32]??
  /// The terminals and foreground groups the decision relied on, in the order consulted: a later snapshot that
  /// sees other groups there saw the foreground change (the wait's re-check).
  package private(set) var foregroundsSeen: [Int32] = []

  /// A snapshot reading through `facts`.
  package init(_ facts: ProcessFacts) { self.facts = facts }

  /// /proc/PID/stat's fields; nil when the process is gone or the file is malformed.
  package func stat(_ pid: Int32) -> Stat? {
    if let read = known[pid]?.stat { return read }
    var parsed: Stat? = nil
    if pid >= 1, let bytes = facts.read("/proc/\(pid)/stat", 4096), let stat = ProcessFile.Stat(bytes, count: 6),
      let parent = stat.numbers[1], let group = stat.numbers[2], let session = stat.numbers[3],
      let terminal = stat.numbers[4], let foreground = stat.numbers[5]
    {
      parsed = Stat(
        name: stat.name, parent: parent, group: group, session: session, terminal: terminal, foregroundGroup: foreground)
    }
    known[pid, default: Known()].stat = .some(parsed)
    return parsed
  }

  /// Notes the terminal and foreground group of `stat` as relied on.
  package func noteForeground(_ stat: Stat) {
    foregroundsSeen.append(stat.terminal)
    foregroundsSeen.append(stat.foregroundGroup)
  }

  /// The real uid on the "Uid:" line of /proc/PID/status; nil when it cannot be read.
  package func realUID(_ pid: Int32) -> UInt32? {
    if let read = known[pid]?.realUID { return read }
    let uid = status(pid, "Uid:").flatMap { UInt32(exactly: $0) }
    known[pid, default: Known()].realUID = .some(uid)
    return uid
  }

  /// The TracerPid of /proc/PID/status; nil when it cannot be read.
  package func tracer(_ pid: Int32) -> Int32? { status(pid, "TracerPid:").flatMap { Int32(exactly: $0) } }

  /// The first number on the line of /proc/PID/status that starts with `key`.
  private func status(_ pid: Int32, _ key: StaticString) -> Int64? {
    guard pid >= 1, let bytes = facts.read("/proc/\(pid)/status", 16384) else { return nil }
    return ProcessFile.statusNumber(key, in: bytes)
  }

  /// The executable's path as /proc/PID/exe names it; nil when it cannot be read.
  package func executable(_ pid: Int32) -> String? {
    if let read = known[pid]?.executable { return read }
    let path = pid >= 1 ? facts.readLink("/proc/\(pid)/exe") : nil
    known[pid, default: Known()].executable = .some(path)
    return path
  }

  /// The executable's file name, else COMM; "?" when neither can be read.
  package func programName(_ pid: Int32) -> String {
    executable(pid).map(Self.baseName) ?? stat(pid)?.name ?? "?"
  }

  /// Whether `pid` runs a system program (`SystemProgram.verdict`), decided once.
  package func systemProgram(_ pid: Int32) -> SystemProgram.Verdict {
    if let decided = known[pid]?.program { return decided }
    let verdict = SystemProgram.verdict(pid, self)
    known[pid, default: Known()].program = verdict
    return verdict
  }

  /// The open descriptors of `pid` (at most `maximumDescriptors`); nil when they cannot be listed or there are
  /// more.
  package func descriptors(_ pid: Int32) -> [Descriptor]? {
    if let read = known[pid]?.descriptors { return read }
    var found: [Descriptor]? = nil
    if pid >= 1, let names = facts.list("/proc/\(pid)/fd", Self.maximumDescriptors + 1),
      names.count <= Self.maximumDescriptors
    {
      found = names.compactMap { name in
        guard let number = Int32(name), let target = facts.readLink("/proc/\(pid)/fd/\(name)") else { return nil }
        return Descriptor(number: number, target: target)
      }
    }
    known[pid, default: Known()].descriptors = .some(found)
    return found
  }

  /// The pseudo-terminal indexes of the masters `pid` holds (from /proc/PID/fdinfo's `tty-index:`); nil when its
  /// descriptors cannot be read.
  package func masters(_ pid: Int32) -> [Int]? {
    guard let descriptors = descriptors(pid) else { return nil }
    return descriptors.filter { TerminalDevice.isMaster($0.target) }.map { masterIndex(pid, $0.number) ?? -1 }
  }

  /// The index of the pseudo-terminal whose master is `pid`'s descriptor `fd`.
  private func masterIndex(_ pid: Int32, _ fd: Int32) -> Int? {
    guard let bytes = facts.read("/proc/\(pid)/fdinfo/\(fd)", 4096) else { return nil }
    return ProcessFile.statusNumber("tty-index:", in: bytes).flatMap { Int(exactly: $0) }
  }

  /// Every pid in /proc; nil when /proc cannot be listed or holds more than `maximumProcesses`.
  package func allProcesses() -> [Int32]? {
    if let scanned { return scanned }
    var pids: [Int32]? = nil
    if let names = facts.list("/proc", Self.maximumProcesses + 512) {
      let numbers = names.compactMap { Int32($0) }
      if numbers.count <= Self.maximumProcesses { pids = numbers.sorted() }
    }
    scanned = .some(pids)
    return pids
  }

  /// Every process holding the master of pts/`index`, found by reading every process's descriptors; nil when the
  /// scan cannot be made whole (/proc too large, or a process whose descriptors cannot be read): a holder might
  /// be missed.
  package func holders(ofPts index: Int) -> [Int32]? {
    guard let pids = allProcesses() else { return nil }
    var found: [Int32] = []
    for pid in pids {
      guard let masters = masters(pid) else {
        // A process that ended during the scan holds nothing; any other unreadable one might.
        if stat(pid) == nil { continue }
        return nil
      }
      if masters.contains(index) { found.append(pid) }
    }
    return found
  }

  /// What process `pid` is blocked in, from /proc/PID/syscall: the call's number and its first three arguments; nil
  /// when it is running, or the file cannot be read.
  package func blockedCall(_ pid: Int32) -> (number: Int64, arguments: [UInt64])? {
    guard pid >= 1, let bytes = facts.read("/proc/\(pid)/syscall", 512) else { return nil }
    let fields = bytes.split(separator: UInt8(ascii: " "))
    guard fields.count >= 4, let number = ProcessFile.decimal(fields[0]), number >= 0 else { return nil }
    var arguments: [UInt64] = []
    for field in fields[1...3] {
      guard let value = ProcessFile.hexadecimal(field) else { return nil }
      arguments.append(value)
    }
    return (number, arguments)
  }

  /// The descriptors process `pid`, blocked in `call`, waits to read: read(2)'s descriptor, the read set of
  /// select(2) and pselect6(2), the entries of poll(2) and ppoll(2) that wait for input (from its memory); nil when
  /// it waits for something else, or they cannot be read.
  package func awaitedInput(_ pid: Int32, _ call: (number: Int64, arguments: [UInt64])) -> [Int32]? {
    let numbers = Syscalls.inputSyscallNumbers
    let first = call.arguments[0]
    let second = call.arguments[1]
    switch call.number {
    case numbers.read:
      return first <= UInt64(Int32.max) ? [Int32(first)] : nil
    case numbers.select, numbers.pselect6:
      // select(nfds, readfds, …): the read set is a bitmap of nfds bits.
      guard first >= 1, first <= 1024, second != 0,
        let set = facts.memory(pid, second, Int((first + 63) / 64) * 8)
      else { return nil }
      return (0..<Int32(first)).filter { fd in set[Int(fd) / 8] & (1 << UInt8(fd % 8)) != 0 }
    case numbers.poll, numbers.ppoll:
      // poll(fds, nfds, …): struct pollfd { int fd; short events; short revents; }, POLLIN 1.
      guard second >= 1, second <= 1024, first != 0, let entries = facts.memory(pid, first, Int(second) * 8) else {
        return nil
      }
      return stride(from: 0, to: entries.count, by: 8).compactMap { offset -> Int32? in
        let fd = Int32(entries[offset]) | Int32(entries[offset + 1]) << 8 | Int32(entries[offset + 2]) << 16
          | Int32(entries[offset + 3]) << 24
        return fd >= 0 && entries[offset + 4] & 1 != 0 ? fd : nil
      }
    default:
      return nil
    }
  }

  /// The last component of a path.
  package static func baseName(_ path: String) -> String {
    path.split(separator: "/").last.map(String.init) ?? path
  }
}
