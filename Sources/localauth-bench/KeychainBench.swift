import LocalAuthCore
import LocalAuthTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Item 11: what one keychain call costs with many items in the user's keychain (issue 28, "Cost"). Two keychains
/// in one process, one with `small` items and one with `large`, take turns round by round (rotating which goes
/// first); each call on the large one is compared with the same call on the small one in the same round.
/// The calls are the core's (`Keychain`), as the Security product makes them for root and the helper for a user:
/// a read (the query, then the item's data), an update of the data, and an add of a new item (its delete, untimed,
/// follows, so that the item count stays the same).
/// Self-contained: it needs root (the keychain's folders must be root's) but not the benchmark user, localauthctl or
/// the other items' scratch folders; it makes (and removes) a scratch folder of its own under `parent`.
struct KeychainBench {
  let counts: BenchCounts
  /// The folder its scratch folder is made in (tmpfs when there is one: the item files' fsyncs are not the figure).
  let parent: String

  /// /dev/shm when it is a writable tmpfs, else /tmp.
  static var defaultParent: String {
    let mounts = readText("/proc/mounts") ?? ""
    let shm = mounts.split(separator: "\n").contains { line in
      let fields = line.split(separator: " ")
      return fields.count > 2 && fields[1] == "/dev/shm" && fields[2] == "tmpfs"
    }
    return shm && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp"
  }

  /// One keychain and its times per call.
  private struct Case {
    let items: Int
    let keychain: Keychain
    var read: [Double] = []
    var update: [Double] = []
    var add: [Double] = []
  }

  /// Adds figures 11a–11c; returns the median in-process read with the small keychain, in seconds.
  @discardableResult
  func run(into report: inout Report) throws -> Double? {
    guard geteuid() == 0 else {
      throw SetupError("Item 11 needs root: the keychain works only in folders owned by root, as the helper's and root's are.")
    }
    let base: String
    do { base = try TemporaryFolder.make(parent + "/localauth-bench-keychain.XXXXXX") } catch { throw SetupError(error.description) }
    defer { TemporaryFolder.remove(base) }
    let small = 10
    let large = counts.keychainItems
    let user = try benchUserName()
    let hasher = PasscodeHasher(cost: 5)
    var cases: [Case] = []
    var populateSeconds = 0.0
    for items in [small, large] {
      let root = base + "/keychain-\(items)"
      guard mkdir(root, 0o700) == 0 else { throw SetupError("Cannot create \(root).") }
      let keychain = Keychain(root: root, tcti: nil, limits: KeychainLimits(maxItems: large * 2, maxBytes: 1 << 30))
      let start = monotonicSeconds()
      for n in 0..<items {
        try keychainCall { () throws(KeychainError) in
          _ = try keychain.add(
            .init(service: "bench", account: "item-\(n)", data: Array("secret \(n)".utf8)), for: user, record: nil, hasher: hasher)
        }
      }
      populateSeconds += monotonicSeconds() - start
      cases.append(Case(items: items, keychain: keychain))
    }

    let rounds = counts.keychainRounds
    for round in 0..<(rounds + 3) {
      for offset in 0..<cases.count {
        let i = (round + offset) % cases.count
        let keychain = cases[i].keychain
        // The same item in both: one in the middle of the small keychain's names.
        let account = "item-\(small / 2)"
        var start = monotonicSeconds()
        try keychainCall { () throws(KeychainError) in
          guard let item = try keychain.matching(.init(service: "bench", account: account), for: user).first else {
            throw KeychainError.itemNotFound
          }
          let data = try keychain.open(item, for: user, authorization: KeychainAuthorization(), lock: .unlocked, hasher: hasher)
          guard data == Array("secret \(small / 2)".utf8) || data == Array("changed \(round)".utf8) || data.starts(with: Array("changed".utf8)) else {
            throw KeychainError.parameter("the read returned other data")
          }
        }
        cases[i].read.append(monotonicSeconds() - start)
        start = monotonicSeconds()
        try keychainCall { () throws(KeychainError) in
          _ = try keychain.update(
            .init(service: "bench", account: account), for: user, data: Array("changed \(round)".utf8), label: nil, hasher: hasher)
        }
        cases[i].update.append(monotonicSeconds() - start)
        start = monotonicSeconds()
        try keychainCall { () throws(KeychainError) in
          _ = try keychain.add(.init(service: "bench", account: "new-\(round)", data: Array("new".utf8)), for: user, record: nil, hasher: hasher)
        }
        cases[i].add.append(monotonicSeconds() - start)
        try keychainCall { () throws(KeychainError) in _ = try keychain.delete(.init(service: "bench", account: "new-\(round)"), for: user) }
      }
    }

    let calls: [(String, String, KeyPath<Case, [Double]>)] = [
      ("11a", "a read (query, then the item's data)", \.read),
      ("11b", "an update of the item's data", \.update),
      ("11c", "an add of a new item (after the previous round's delete)", \.add),
    ]
    for (id, label, path) in calls {
      let baseline = Array(cases[0][keyPath: path].dropFirst(3))
      let times = Array(cases[1][keyPath: path].dropFirst(3))
      let ratio = Summary(zip(times, baseline).map { $0 / $1 })
      let met = ratio.map { $0.median <= 1.2 }
      report.figures.append(
        Figure(
          id: id, name: "Keychain: \(label) with \(grouped(Int64(large))) items vs \(small)",
          ours: describe(Summary(times), scale: 1e3, unit: "ms"), reference: describe(Summary(baseline), scale: 1e3, unit: "ms"),
          comparison: describeRatio(ratio), target: "≤ 1.2×", verdict: verdict(met),
          meaning: "With \(grouped(Int64(large))) items in the user's keychain, \(label) costs \(ratio.map { fixed($0.median, 2) } ?? "n/a")× "
            + "what it costs with \(small).",
          json: .object([
            ("unit", .string("ms")), ("items", .number(Double(large))), ("baseline_items", .number(Double(small))),
            ("subject", Summary(times)?.json(scale: 1e3) ?? .null), ("reference", Summary(baseline)?.json(scale: 1e3) ?? .null),
            ("ratio", ratio?.json() ?? .null),
          ])))
    }
    report.notes.append(
      "Item 11 calls the core's Keychain in the benchmark's process (what the Security product does for root, and the helper for a "
        + "user), on keychains in a scratch folder under \(parent): \(grouped(Int64(small + large))) items added through Keychain.add in \(fixed(populateSeconds, 1)) s; "
        + "\(rounds) rounds, the first 3 dropped. Items have no access control (a read needs no evaluation).")
    return Summary(Array(cases[0].read.dropFirst(3)))?.median
  }

  /// A user name for the keychains (only a folder's name: no account is needed).
  private func benchUserName() throws -> UserName {
    do { return try UserName("labench5") } catch { throw SetupError("The user name was refused: \(error).") }
  }

  /// Runs a keychain call, turning its typed error into the benchmark's.
  private func keychainCall(_ body: () throws(KeychainError) -> Void) throws {
    do { try body() } catch { throw SetupError("A keychain call failed: \(error).") }
  }
}
