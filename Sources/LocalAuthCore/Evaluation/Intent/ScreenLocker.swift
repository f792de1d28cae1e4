/// Whether the process that asks is a graphical screen locker whose PAM conversation answers the echo-off prompt at
/// once with what the user typed before Return (docs/RULES.md, "Screen lockers: the typed passcode or the finger").
///
/// i3lock and swaylock call PAM only when Return is pressed, and answer every PAM_PROMPT_ECHO_OFF with the text typed
/// before it; they show no text message. For such a caller the module asks the passcode prompt before the finger:
/// a passcode already typed is checked at once instead of waiting out the finger's timeout, and an empty answer
/// means "use the finger". A locker whose conversation waits for typing instead (xsecurelock, hyprlock, the GNOME
/// and KDE lockers) must not be named: the finger would wait behind its prompt.
///
/// A process is such a locker when its executable's name is in `locker_programs=` and it runs a system program
/// (`SystemProgram`: the kernel's word, never argv[0] or COMM): a program of the user's called "i3lock" keeps the
/// finger first, as before. The name is looked at first, so that the strict check runs only for a named program.
public enum ScreenLocker {
  /// The default `locker_programs=`: lockers whose conversation answers with what was typed before Return.
  public static let defaultPrograms = ["i3lock", "swaylock"]

  /// The decision and the facts behind it.
  public struct Verdict: Equatable, Sendable {
    /// The locker's program name when the process is a locker named in `locker_programs=`; nil otherwise.
    package var name: String?
    /// Why, as a phrase for the one log line.
    package var reason: String

    /// Describes a decision.
    public init(name: String?, reason: String) {
      self.name = name
      self.reason = reason
    }
  }

  /// Whether process `pid` is a locker named in `programs`, read through `facts`.
  package static func check(_ pid: Int32, programs: [String], system facts: ProcessFacts) -> Verdict {
    decide(pid, programs: programs, ProcessSnapshot(facts))
  }

  /// The decision over `snapshot`.
  static func decide(_ pid: Int32, programs: [String], _ snapshot: ProcessSnapshot) -> Verdict {
    guard !programs.isEmpty else { return Verdict(name: nil, reason: "locker_programs names no program") }
    guard let path = snapshot.executable(pid) else {
      return Verdict(name: nil, reason: "the executable of process \(pid) cannot be read")
    }
    let last = path.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(path[path.utf8.index(after: $0)...]) } ?? path
    guard programs.contains(last) else {
      return Verdict(name: nil, reason: "process \(pid) runs \(LogText.token(path)), which locker_programs does not name")
    }
    let program = snapshot.systemProgram(pid)
    guard let name = program.name, programs.contains(name) else {
      return Verdict(name: nil, reason: "locker_programs names \(LogText.token(last)), but \(program.reason)")
    }
    return Verdict(name: name, reason: "process \(pid) runs screen locker \(name), a system program (locker_programs)")
  }
}
