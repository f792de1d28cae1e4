import Foundation
import LocalAuthCore

#if canImport(Glibc)
import Glibc
#endif

/// A hostile app: a Python script, run as the test user, that starts localauth-helper on a socket pair as an
/// LAContext would (SO_PASSCRED on the helper's end, the helper's standard input, no other descriptor, an empty
/// environment), then does what each step says instead of following the protocol.
///
/// A leading `nocred` leaves SO_PASSCRED unset. Steps: `hello` (the app hello), `send:HEX` (any bytes), `pad:N`
/// (N bytes "A", past what an argument may hold), `reply` (read until a reply or a module result, or the end),
/// `secret` (read until a secret prompt, unanswered), `answer:TEXT` (read until a secret prompt and
/// answer it; stops at a reply), `shut` (close our sending side), `fork:HEX` (a forked child writes the bytes on
/// the inherited socket), `pass:HEX` (the socket is passed with SCM_RIGHTS to another Python process, which
/// writes the bytes), `ended:S` (read until the helper closes the socket by itself, at most S seconds). Then it
/// closes its sending side, prints every message left, the exit status and the helper's output in hex.
///
/// `parallel:N` instead starts N helpers at once, each sent the hello and the call `call:HEX`; when every one has
/// asked for a secret (or replied), all answer at the same moment, helper I with the I-th of `answers:A,B,…`.
///
/// Output lines: `h I msg TAG HEX`, `h I exit STATUS`, `h I stdout HEX`, `h I stderr HEX`, `h I ended`,
/// `h I still-open`, `h I timeout`, `child PID`, `send-error ERRNO`, `elapsed SECONDS`.
struct HostileAppClient {
  static let script = #"""
    import os, socket, subprocess, sys, threading, time
    helper, steps = sys.argv[1], sys.argv[2:]
    began = time.monotonic()
    out = threading.Lock()
    def say(*words):
        with out: print(*words, flush=True)
    def frame(tag, payload): return bytes([tag, len(payload) >> 8, len(payload) & 255]) + payload
    HELLO = frame(0x04, bytes([0, 3]))  # HelperWire.version, big-endian

    class Helper:
        def __init__(self, index, credentials=True):
            self.index = index
            self.ours, theirs = socket.socketpair()
            if credentials: theirs.setsockopt(socket.SOL_SOCKET, socket.SO_PASSCRED, 1)
            self.p = subprocess.Popen([helper], stdin=theirs, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                      close_fds=True, env={})
            theirs.close()
            self.buffer = b""
            self.closed = False
        def receive(self, timeout=20):
            """One (tag, payload), None at the end of the stream; raises TimeoutError."""
            deadline = time.monotonic() + timeout
            while True:
                if len(self.buffer) >= 3:
                    n = self.buffer[1] << 8 | self.buffer[2]
                    if len(self.buffer) >= 3 + n:
                        m = (self.buffer[0], self.buffer[3:3 + n])
                        self.buffer = self.buffer[3 + n:]
                        return m
                if self.closed: return None
                left = deadline - time.monotonic()
                if left <= 0: raise TimeoutError()
                self.ours.settimeout(left)
                try: chunk = self.ours.recv(65536)
                except socket.timeout: raise TimeoutError()
                except ConnectionResetError: chunk = b""
                if not chunk:
                    self.closed = True
                    continue
                self.buffer += chunk
        def show(self, m): say("h %d msg %02x %s" % (self.index, m[0], m[1].hex()))
        def read_until(self, tags, timeout=20):
            """Prints messages until one whose tag is in `tags` (returned) or the end (None)."""
            while True:
                try: m = self.receive(timeout)
                except TimeoutError:
                    say("h %d timeout" % self.index); return None
                if m is None: return None
                self.show(m)
                if m[0] in tags: return m
        def send(self, data):
            try: self.ours.sendall(data)
            except OSError as e: say("send-error", e.errno)
        def finish(self):
            try: self.ours.shutdown(socket.SHUT_WR)
            except OSError: pass
            self.read_until(())
            try: o, e = self.p.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                self.p.kill(); o, e = self.p.communicate(); say("h %d killed" % self.index)
            say("h %d exit %d" % (self.index, self.p.returncode))
            say("h %d stdout %s" % (self.index, o.hex()))
            say("h %d stderr %s" % (self.index, e.hex()))

    PASS_CHILD = ("import os, socket, sys\n"
                  "carrier = socket.socket(fileno=int(sys.argv[1]))\n"
                  "_, fds, _, _ = socket.recv_fds(carrier, 1, 1)\n"
                  "os.write(fds[0], bytes.fromhex(sys.argv[2]))\n"
                  "print(os.getpid(), flush=True)\n")

    if steps and steps[0].startswith("parallel:"):
        count = int(steps[0][9:])
        call = bytes.fromhex(steps[1][5:])
        answers = steps[2][8:].split(",")
        helpers = [Helper(i) for i in range(count)]
        barrier = threading.Barrier(count)
        def session(h):
            h.send(HELLO + call)
            asked = h.read_until((0x14, 0x1e, 0x1f))
            try: barrier.wait(timeout=60)
            except threading.BrokenBarrierError: say("h %d barrier-broken" % h.index)
            if asked is not None and asked[0] == 0x14:
                h.send(frame(0x02, answers[h.index].encode()))
                h.read_until((0x1e, 0x1f))
        threads = [threading.Thread(target=session, args=(h,)) for h in helpers]
        for t in threads: t.start()
        for t in threads: t.join()
        for h in helpers: h.finish()
    else:
        credentials = not (steps and steps[0] == "nocred")
        if not credentials: steps = steps[1:]
        h = Helper(0, credentials)
        for step in steps:
            kind, _, arg = step.partition(":")
            if kind == "hello": h.send(HELLO)
            elif kind == "send": h.send(bytes.fromhex(arg))
            elif kind == "pad": h.send(b"A" * int(arg))
            elif kind == "reply": h.read_until((0x1e, 0x1f))
            elif kind == "secret": h.read_until((0x14, 0x1e, 0x1f))
            elif kind == "answer":
                m = h.read_until((0x14, 0x1e, 0x1f))
                if m is not None and m[0] == 0x14: h.send(frame(0x02, arg.encode()))
            elif kind == "shut":
                try: h.ours.shutdown(socket.SHUT_WR)
                except OSError as e: say("send-error", e.errno)
            elif kind == "fork":
                pid = os.fork()
                if pid == 0:
                    try: os.write(h.ours.fileno(), bytes.fromhex(arg))
                    finally: os._exit(0)
                os.waitpid(pid, 0)
                say("child", pid)
            elif kind == "pass":
                carrier, theirs = socket.socketpair()
                child = subprocess.Popen([sys.executable, "-c", PASS_CHILD, str(theirs.fileno()), arg],
                                         pass_fds=[theirs.fileno()], stdout=subprocess.PIPE, env={})
                theirs.close()
                socket.send_fds(carrier, [b"x"], [h.ours.fileno()])
                o, _ = child.communicate(timeout=30)
                say("child", o.decode().strip())
            elif kind == "ended":
                h.read_until((), timeout=float(arg))
                say("h 0 ended" if h.closed else "h 0 still-open")
        h.finish()
    say("elapsed %.3f" % (time.monotonic() - began))
    """#

  /// What one helper did.
  struct Session {
    /// Its messages as sent, tag and payload.
    var frames: [(tag: UInt8, payload: [UInt8])] = []
    var exit: Int?
    var silent = true
    var ended = false
    var timedOut = false

    /// The messages, decoded as an app decodes them (nil for one it would refuse).
    var messages: [HelperMessage?] { frames.map { try? HelperMessage.decode(tag: $0.tag, payload: $0.payload) } }
    var replies: [AppReply] { messages.compactMap { if case .reply(let reply)? = $0 { reply } else { nil } } }
    var results: [HelperResult] { messages.compactMap { if case .result(let result)? = $0 { result } else { nil } } }
    var items: [AppItem] { messages.compactMap { if case .item(let item)? = $0 { item } else { nil } } }
    var requests: [String] { messages.compactMap { if case .request(let text)? = $0 { text } else { nil } } }
    var secrets: [String] { messages.compactMap { if case .secret(let text)? = $0 { text } else { nil } } }
    var errors: [String] { messages.compactMap { if case .error(let text)? = $0 { text } else { nil } } }
  }

  /// What one run printed.
  struct Outcome {
    let run: ProcessRun
    /// The helpers, by index.
    var sessions: [Session] = []
    /// The pids the `fork:` and `pass:` children printed.
    var children: [String] = []
    /// Seconds the script ran.
    var elapsed: Double?

    /// The only helper of a run that started one.
    var only: Session { sessions.first ?? Session() }

    init(run: ProcessRun) {
      self.run = run
      for line in run.stdoutLines {
        let words = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        if words.first == "child", words.count == 2 { children.append(words[1]) }
        if words.first == "elapsed", words.count == 2 { elapsed = Double(words[1]) }
        guard words.first == "h", words.count >= 3, let index = Int(words[1]) else { continue }
        while sessions.count <= index { sessions.append(Session()) }
        switch words[2] {
        case "msg" where words.count == 5:
          guard let tag = UInt8(words[3], radix: 16) else { continue }
          sessions[index].frames.append((tag, HostileAppClient.bytes(hex: words[4])))
        case "exit": sessions[index].exit = words.count == 4 ? Int(words[3]) : nil
        case "stdout", "stderr": if words.count == 4 && !words[3].isEmpty { sessions[index].silent = false }
        case "ended": sessions[index].ended = true
        case "timeout", "killed": sessions[index].timedOut = true
        default: break
        }
      }
    }
  }

  let world: HelperWorld
  let scriptPath: String

  init(_ world: HelperWorld) throws {
    self.world = world
    scriptPath = world.sandbox.root + "/app-driver.py"
    try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
    chmod(scriptPath, 0o644)
  }

  /// Runs the steps as the test user (or as `uid`); `devLog` as in `HelperWorld.asUser`.
  func run(
    _ steps: [String], devLog: SyslogSocket? = nil, timeout: Double = 120, inTerminal: Bool = false, uid: UInt32? = nil
  ) throws -> Outcome {
    // In a terminal (root-held, the client in its foreground) a request is visible: the finger may be asked.
    if inTerminal { return Outcome(run: try world.inRootTerminal("/usr/bin/python3", [scriptPath, world.helper] + steps)) }
    return Outcome(
      run: try world.asUser("/usr/bin/python3", [scriptPath, world.helper] + steps, timeout: timeout, devLog: devLog, uid: uid))
  }

  /// `send:` with the wire form of `message`.
  static func send(_ message: HelperMessage) -> String { "send:" + hex(message.encode()) }

  static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

  static func bytes(hex: String) -> [UInt8] {
    var bytes: [UInt8] = []
    var index = hex.startIndex
    while index < hex.endIndex, let next = hex.index(index, offsetBy: 2, limitedBy: hex.endIndex) {
      guard let byte = UInt8(hex[index..<next], radix: 16) else { break }
      bytes.append(byte)
      index = next
    }
    return bytes
  }
}
