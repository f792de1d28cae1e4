import Foundation

/// A hostile caller of localauth-helper: a Python script, run as the test user, that starts the helper on a
/// socket pair as pam_localauth would, and then does what each step says instead of following the protocol.
///
/// Leading `env:NAME=VALUE` arguments set the helper's environment (and only the helper's). Steps: `hello:USER` (a well-formed hello), `claim:USER,SERVICE,TTY` (a hello naming a service and a terminal), `raw:HEX` (any bytes), `shut` (close our sending side),
/// `answer:TEXT` (wait for the secret prompt, then answer), `kill:MS` (SIGKILL after MS ms), `stopcont:MS`
/// (SIGSTOP after MS ms, SIGCONT 300 ms later). It then prints every message left (`msg TAG HEX`), the exit
/// status, and the helper's standard output and error in hex.
struct HelperDriver {
  static let script = #"""
    import os, signal, socket, subprocess, sys, time
    helper, steps = sys.argv[1], sys.argv[2:]
    ours, theirs = socket.socketpair()
    env = {k: v for k, v in os.environ.items()}
    while steps and steps[0].startswith("env:"):
        name, _, value = steps.pop(0)[4:].partition("=")
        env[name] = value
    p = subprocess.Popen([helper], stdin=theirs, stdout=subprocess.PIPE, stderr=subprocess.PIPE, close_fds=True, env=env)
    theirs.close()
    def frame(tag, payload): return bytes([tag, len(payload) >> 8, len(payload) & 255]) + payload
    VERSION = bytes([0, 3])  # HelperWire.version, big-endian
    def receive():
        ours.settimeout(30)
        def exactly(n):
            data = b""
            while len(data) < n:
                chunk = ours.recv(n - len(data))
                if not chunk: return None
                data += chunk
            return data
        header = exactly(3)
        if header is None: return None
        body = exactly(header[1] << 8 | header[2])
        return None if body is None else (header[0], body)
    def show(m): print("msg %02x %s" % (m[0], m[1].hex()), flush=True)
    for step in steps:
        kind, _, arg = step.partition(":")
        try:
            if kind == "hello": ours.sendall(frame(1, VERSION + b"\0".join([arg.encode(), b"driver", b"", b""])))
            elif kind == "claim":
                user, service, tty = arg.split(",")
                ours.sendall(frame(1, VERSION + b"\0".join([user.encode(), service.encode(), tty.encode(), b""])))
            elif kind == "raw": ours.sendall(bytes.fromhex(arg))
            elif kind == "shut": ours.shutdown(socket.SHUT_WR)
            elif kind == "answer":
                while True:
                    m = receive()
                    if m is None: break
                    show(m)
                    if m[0] == 0x14:
                        ours.sendall(frame(2, arg.encode()))
                        break
            elif kind == "kill":
                time.sleep(int(arg) / 1000); p.send_signal(signal.SIGKILL)
            elif kind == "stopcont":
                time.sleep(int(arg) / 1000); p.send_signal(signal.SIGSTOP); time.sleep(0.3); p.send_signal(signal.SIGCONT)
        except OSError as e:
            print("send-error", e.errno, flush=True)
    while True:
        try: m = receive()
        except OSError as e:
            print("receive-error", e, flush=True); break
        if m is None: break
        show(m)
    out, err = p.communicate(timeout=60)
    print("exit", p.returncode)
    print("stdout", out.hex())
    print("stderr", err.hex())
    """#

  /// What one run printed.
  struct Outcome {
    let run: ProcessRun
    /// The messages received, as "TAG HEX" (tag in two hex digits).
    var messages: [String] { run.stdoutLines.filter { $0.hasPrefix("msg ") }.map { String($0.dropFirst(4)) } }
    /// The result message's payload in hex, or nil when the helper sent none.
    var result: String? { messages.last(where: { $0.hasPrefix("1f ") }).map { String($0.dropFirst(3)) } }
    /// The helper's exit status (negative: killed by that signal).
    var exit: Int? { run.stdoutLines.first(where: { $0.hasPrefix("exit ") }).flatMap { Int($0.dropFirst(5)) } }
    /// True when the helper wrote nothing on its standard output or error.
    var silent: Bool { run.stdoutLines.contains("stdout ") && run.stdoutLines.contains("stderr ") }
  }

  /// Result payloads in hex, as HelperResult encodes them.
  enum Result {
    static let passcodeSuccess = "0001"
    static let wrongPasscode = "01ffffffff00"
    static let otherUser = "03"
    static let protocolViolation = "0407"
    static let conversationFailed = "0404"
    static let unknownUser = "0408"
  }

  let world: HelperWorld
  let scriptPath: String

  init(_ world: HelperWorld) throws {
    self.world = world
    scriptPath = world.sandbox.root + "/helper-driver.py"
    try Self.script.write(toFile: scriptPath, atomically: true, encoding: .utf8)
    chmod(scriptPath, 0o644)
  }

  /// Runs the steps against `helper` (the installed copy by default) as the test user (or as `uid`); `wrapper` is
  /// a command the driver runs under (`prlimit --fsize=…`), `setpriv` and `devLog` as in `HelperWorld.asUser`.
  func run(
    _ steps: [String], helper: String? = nil, environment: [String: String] = [:], wrapper: [String] = [],
    setpriv: [String] = [], devLog: SyslogSocket? = nil, uid: UInt32? = nil
  ) throws -> Outcome {
    let variables = environment.sorted { $0.key < $1.key }.map { "env:\($0.key)=\($0.value)" }
    let command = wrapper + ["/usr/bin/python3", scriptPath, helper ?? world.helper] + variables + steps
    return Outcome(
      run: try world.asUser(command[0], Array(command.dropFirst()), setpriv: setpriv, devLog: devLog, uid: uid))
  }
}
