#if canImport(Glibc)
import Glibc
#endif
import LocalAuthCore

/// Item 9: what the intent check (docs/RULES.md, "Intent") adds to the fingerprint path: the /proc reads of
/// RequestVisibility (the caller's stat and status, its parent's stat; all made whatever the verdict) and of the
/// approved command (the caller's cmdline), timed in this process on itself, as the module makes them once per
/// authentication. Figure 1's pamtester runs as root with its service in gui_services=, which a root caller's
/// request needs no /proc read for: this figure is the check's whole cost for a request from a terminal.
///
/// 9b: what deciding that a pseudo-terminal is watched costs (TerminalWatch, issue 37): every holder of its master
/// counts, so the descriptors of every process in /proc are read, whatever the verdict. The pseudo-terminal is one
/// this process opens and holds; the figure names how many processes the machine ran.
struct IntentBench {
  let counts: BenchCounts

  func run(into report: inout Report) {
    let system = RequestVisibility.System.live
    let pid = getpid()
    let input = RequestVisibility.Input(service: "sudo", processID: pid, guiServices: [])
    let rounds = max(200, counts.wholeProcessPairs * 20)
    var samples: [Double] = []
    var visible = 0
    for _ in 0..<(rounds + 20) {
      let start = monotonicSeconds()
      let verdict = RequestVisibility.check(input, system: system)
      let cmdline = system.read("/proc/\(pid)/cmdline", 1 << 17) ?? []
      _ = ApprovedCommand.phrase(cmdline: cmdline, service: "sudo")
      samples.append(monotonicSeconds() - start)
      if verdict.isVisible { visible += 1 }
    }
    let measured = Summary(Array(samples.dropFirst(20)))
    let met = measured.map { $0.median <= 1e-4 }
    report.figures.append(
      Figure(
        id: "9", name: "The intent check: foreground test and approved command (/proc reads, in process)",
        ours: describe(measured, scale: 1e3, unit: "ms"), reference: "—", comparison: "—", target: "≤ 0.1 ms",
        verdict: verdict(met),
        meaning: "Deciding whether the request is visible and naming its command adds "
          + "\(measured.map { fixed($0.median * 1e3, 3) } ?? "n/a") ms to a fingerprint authentication.",
        json: .object([
          ("unit", .string("ms")), ("subject", measured?.json(scale: 1e3) ?? .null), ("target_ms", .number(0.1)),
          ("visible_rounds", .number(Double(visible))),
        ])))
    watchFigure(into: &report)
  }

  /// 9b: the scan of /proc that TerminalWatch makes for one pseudo-terminal.
  func watchFigure(into report: inout Report) {
    // A new pseudo-terminal's master, held by this process; its index from the kernel's fdinfo.
    let master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
    let info = master >= 0 ? readText("/proc/self/fdinfo/\(master)") ?? "" : ""
    guard let line = info.split(separator: "\n").first(where: { $0.hasPrefix("tty-index:") }),
      let index = Int(line.dropFirst("tty-index:".count).drop(while: { $0 == " " || $0 == "\t" }))
    else {
      if master >= 0 { close(master) }
      return
    }
    defer { close(master) }
    let rounds = max(50, counts.wholeProcessPairs * 2)
    var samples: [Double] = []
    var processes = 0
    for _ in 0..<(rounds + 5) {
      let start = monotonicSeconds()
      let snapshot = ProcessSnapshot(.live)
      _ = TerminalWatch.unwatchedReason(pts: index, programs: RequestVisibility.defaultTerminalPrograms, snapshot)
      samples.append(monotonicSeconds() - start)
      processes = snapshot.allProcesses()?.count ?? 0
    }
    let measured = Summary(Array(samples.dropFirst(5)))
    report.figures.append(
      Figure(
        id: "9b", name: "The terminal watch: every holder of a pseudo-terminal's master, over all of /proc (in process)",
        ours: describe(measured, scale: 1e3, unit: "ms") + " (\(processes) processes)", reference: "—", comparison: "—",
        target: "—", verdict: "—",
        meaning: "A request on a pseudo-terminal (a terminal emulator's tab, tmux, script) reads every process's "
          + "descriptors once: \(measured.map { fixed($0.median * 1e3, 2) } ?? "n/a") ms with \(processes) processes running.",
        json: .object([
          ("unit", .string("ms")), ("subject", measured?.json(scale: 1e3) ?? .null), ("processes", .number(Double(processes))),
        ])))
  }
}
