import LocalAuthCore

/// A seeded random-input loop over a fuzz target, for machines or builds without libFuzzer.
enum RandomInputs {
  /// SplitMix64, as in swift-argument-parser's `roll` example.
  struct Generator: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
      state &+= 0x9E37_79B9_7F4A_7C15
      var z = state
      z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
      z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
      return z ^ (z >> 31)
    }
  }

  /// Seeds that look like real inputs, which the loop splices and mutates.
  static func seeds(_ target: FuzzTarget) -> [[UInt8]] {
    switch target {
    case .options:
      return [
        "policy=biometrics\ntimeout=5\0reuse_duration = 10\n# c\nstate_dir=/var/lib/x\n",
        "debug\nhash_cost=3\nfeature=sudo\0lockout_threshold=5\nsensor=faceid\n",
        "\0idle_limit=0\npasscode_max_age=1e3\nreason=\"unlock it\"\n",
      ].map { Array($0.utf8) }
    case .state:
      var record = UserRecord()
      record.passcodeHash = "$y$j9T$abc$def"
      record.passcodeFailures = 3
      record.passcodeNextAllowed = WallTime(seconds: 1_800_000_060)
      record.features = ["sudo", "login"]
      var text = Array(StateCodec.encode(record).dropLast(StateCodec.endMarker.utf8.count + 1))
      text += Array("reuse 1800000000.0 b d1\ntemplate touchID 1.0 right-index 3f000000,bf000000\n\(StateCodec.endMarker)\n".utf8)
      return [text, StateCodec.encode(UserRecord()), Array("localauth-state 2\n".utf8)]
    case .helper:
      var opening = HelperHello(user: "alice", service: "vlock", tty: "/dev/pts/1", remoteHost: "", remoteVariables: ["SSH_TTY": "x"])
      let hello = HelperMessage.hello(opening)
      opening.version = 2  // a module of wire version 2, which the helper still serves
      return [
        hello.encode() + HelperMessage.answer(Array("1234".utf8)).encode(),
        hello.encode() + HelperMessage.cancel(again: true).encode(),
        HelperMessage.hello(HelperHello(user: "bob", service: "su", tty: "", remoteHost: "h")).encode(),
        HelperMessage.hello(opening).encode() + HelperMessage.answer(Array("1234".utf8)).encode(),
      ]
    case .app:
      var evaluate = AppFields()
      evaluate.set(AppCall.Key.policy, byte: 2)
      evaluate.set(AppCall.Key.reason, text: "unlock")
      var read = AppFields()
      read.set(AppCall.Key.service, text: "notes")
      read.set(AppCall.Key.returnData, flag: true)
      var feature = AppFields()
      feature.set(AppCall.Key.feature, text: "sudo")
      feature.set(AppCall.Key.enable, byte: 0)
      let answer = HelperMessage.answer(Array("1234".utf8)).encode()
      return [
        HelperMessage.call(AppCall(.evaluate, evaluate)).encode() + answer
          + HelperMessage.call(AppCall(.feature, feature)).encode(),
        HelperMessage.call(AppCall(.keychainCopy, read)).encode() + HelperMessage.call(AppCall(.domainState)).encode(),
        HelperMessage.call(AppCall(.evaluate, evaluate)).encode() + HelperMessage.cancel(again: true).encode(),
      ]
    }
  }

  /// Runs `count` inputs; returns how many ran.
  static func run(_ target: FuzzTarget, count: Int, seed: UInt64) -> Int {
    var rng = Generator(state: seed)
    let pool = seeds(target)
    let alphabet = Array("=\n \0#\"/.-_0123456789eE+abcdefghijklmnopqrstuvwxyz$,".utf8) + [0xFF, 0xC3, 0x80, 0x7F]
    for _ in 0..<count {
      var input = pool[Int(rng.next() % UInt64(pool.count))]
      for _ in 0..<(1 + Int(rng.next() % 8)) {
        let position = input.isEmpty ? 0 : Int(rng.next() % UInt64(input.count + 1))
        switch rng.next() % 5 {
        case 0: input.insert(alphabet[Int(rng.next() % UInt64(alphabet.count))], at: position)
        case 1: if position < input.count { input.remove(at: position) }
        case 2: if position < input.count { input[position] = UInt8(truncatingIfNeeded: rng.next()) }
        case 3: input = Array(input.prefix(position))
        default:
          let other = pool[Int(rng.next() % UInt64(pool.count))]
          input.insert(contentsOf: other.prefix(Int(rng.next() % 64)), at: position)
        }
      }
      target.run(input)
    }
    return count
  }
}
