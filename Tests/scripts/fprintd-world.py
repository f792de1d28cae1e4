#!/usr/bin/python3
"""The finger for fprintd's virtual reader (libfprint's virtual_device driver), used by
Tests/IntegrationTests/Support/FprintdWorld.swift.

Run with Debian's /usr/bin/python3 (python3-dbus and python3-gi come with python3-dbusmock).

  fprintd-world.py send --socket PATH [--timeout S] COMMAND
      Sends one command to the device's socket and prints the reply (LIST answers with ids, the others with
      nothing). The device listens only between Claim and Release: a refused or missing socket is retried
      until the time limit (exit 2).

  fprintd-world.py feed --bus ADDRESS --socket PATH [--timeout S] [--enroll] [--repeat-last] COMMAND...
      Watches fprintd's signals on ADDRESS and sends each COMMAND to the device when the device waits for a
      finger, one per arming (see ARMING). Prints one line per event, flushed:
        READY                             the signal match is active (start the client after this)
        SIGNAL <Member> <args...>         a signal from net.reactivated.Fprint (booleans as true/false)
        SENT <command>                    a command went to the device
        PAUSED <ms>                       a PAUSE pseudo-command ended
        DONE                              every command is sent and the last one's status arrived
        TIMEOUT                           the time limit passed first (exit 3)
      `PAUSE <ms>` is a pseudo-command: wait that long before the next command (not sent to the device).
      --enroll: arm on EnrollStatus instead of the verify signals. --repeat-last: keep sending the last command
      until a status with done=true (an enrolment of any number of stages).

  fprintd-world.py claim-send --bus ADDRESS --socket PATH [--user NAME] COMMAND
      Claims the default device for NAME (root by default), so that the device listens, sends COMMAND (such as
      UNPLUG), releases it and prints the reply. After UNPLUG the Release fails ("This device has been removed
      from the system") and fprintd drops the device object: that failure is expected and ignored.

ARMING (measured with fprintd 1.94.2 and libfprint 1.94.5):
  * The device queues every command it receives while it listens (Claim..Release) and consumes scan-type
    commands (SCAN, RETRY, ERROR) only while a verify or enroll action runs. So a command sent early is not
    lost by the device; it is consumed by the next VerifyStart, and its VerifyStatus may then be emitted
    before VerifyStart's reply and before VerifyFingerSelected: a client that installs its signal match late,
    or ignores signals before the reply, loses it. Feeding on VerifyFingerSelected avoids that.
  * VerifyStatus with done=false (verify-retry-scan, verify-swipe-too-short, verify-finger-not-centered,
    verify-remove-and-retry for RETRY 0..3): fprintd restarts the verify action by itself (finger-needed goes
    false then true again); the next command may be sent at once (it is queued if early).
  * VerifyStatus with done=true (verify-match, verify-no-match, verify-unknown-error, verify-disconnected):
    the verify session is over; the device consumes nothing until the client calls VerifyStop and VerifyStart
    again, which emits VerifyFingerSelected: that is the re-arming.
  * FINGER, SLEEP and SET_* produce no status: the next command follows at once. UNPLUG removes the device
    (after 0.5 s a running verify ends with verify-unknown-error, done=true; the device object disappears at
    Release and fprintd has no device until it restarts).
  * ERROR 5 gives verify-disconnected, ERROR 7 verify-no-match, other codes verify-unknown-error (done=true).
    A client's own VerifyStop on a running verify emits ("verify-no-match", true) before its reply.
  * Enrol: the first command goes when finger-needed becomes true (EnrollStart), the next ones on each
    EnrollStatus with done=false (enroll-stage-passed, enroll-retry-scan, ...).
"""

import argparse
import socket
import sys
import time

CONSUMING = ("SCAN ", "RETRY ", "ERROR ", "UNPLUG")


def out(*words):
    sys.stdout.write(" ".join(str(w) for w in words) + "\n")
    sys.stdout.flush()


def send_command(path, command, timeout):
    """Connects (retrying while the device does not listen), sends, shuts the write side, reads the reply."""
    deadline = time.monotonic() + timeout
    while True:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
            break
        except OSError:
            sock.close()
            if time.monotonic() >= deadline:
                return None
            time.sleep(0.01)
    try:
        sock.settimeout(max(0.5, deadline - time.monotonic()))
        sock.sendall(command.encode())
        sock.shutdown(socket.SHUT_WR)
        reply = b""
        while True:
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
        return reply.decode(errors="replace")
    except OSError:
        return ""
    finally:
        sock.close()


def cmd_send(args):
    reply = send_command(args.socket, args.command, args.timeout)
    if reply is None:
        print("fprintd-world: the device did not listen on %s" % args.socket, file=sys.stderr)
        return 2
    sys.stdout.write(reply)
    return 0


def word(value):
    if isinstance(value, bool) or type(value).__name__ == "Boolean":
        return "true" if value else "false"
    if isinstance(value, dict):
        return ",".join("%s=%s" % (k, word(v)) for k, v in sorted(value.items()))
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(word(v) for v in value) + "]"
    return str(value)


def cmd_feed(args):
    import dbus
    import dbus.bus
    import dbus.mainloop.glib
    from gi.repository import GLib

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.bus)
    loop = GLib.MainLoop()
    commands = list(args.commands)
    state = {"next": 0, "waiting_status": False, "exit": 0, "pausing": False}

    def finish(code=0):
        state["exit"] = code
        loop.quit()

    def send_ready_ones():
        """Sends commands until one that consumes the arming (or a pause) is sent."""
        while not state["pausing"]:
            if state["next"] >= len(commands):
                if args.repeat_last and commands:
                    command = commands[-1]
                else:
                    if not state["waiting_status"]:
                        out("DONE")
                        finish(0)
                    return
            else:
                command = commands[state["next"]]
                state["next"] += 1
            if command.startswith("PAUSE "):
                state["pausing"] = True
                milliseconds = int(command.split()[1])

                def resume():
                    state["pausing"] = False
                    out("PAUSED", milliseconds)
                    send_ready_ones()
                    return False

                GLib.timeout_add(milliseconds, resume)
                return
            reply = send_command(args.socket, command, 5.0)
            if reply is None:
                out("UNREACHABLE", command)
                finish(4)
                return
            out("SENT", command, *reply.split())
            if command.startswith(CONSUMING):
                state["waiting_status"] = True
                return

    def armed():
        state["waiting_status"] = False
        send_ready_ones()

    def on_signal(*values, **keywords):
        member = keywords.get("member")
        out("SIGNAL", member, *[word(v) for v in values])
        if member == "VerifyFingerSelected" and not args.enroll:
            armed()
        elif member in ("VerifyStatus", "EnrollStatus") and (member == "EnrollStatus") == args.enroll:
            done = bool(values[1])
            if done:
                state["waiting_status"] = False
                if state["next"] >= len(commands):
                    out("DONE")
                    finish(0)
            else:
                armed()
        elif member == "PropertiesChanged" and args.enroll and state["next"] == 0 and not state["waiting_status"]:
            changed = values[1] if len(values) > 1 else {}
            if bool(changed.get("finger-needed", False)):
                armed()

    bus.add_signal_receiver(
        on_signal, bus_name="net.reactivated.Fprint", member_keyword="member", path_keyword="path")
    # A round trip after AddMatch: once it answers, the bus has installed the match.
    bus.call_blocking("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetId", "", ())
    out("READY")

    def expired():
        out("TIMEOUT")
        finish(3)
        return False

    GLib.timeout_add(int(args.timeout * 1000), expired)
    loop.run()
    return state["exit"]


def cmd_claim_send(args):
    import dbus
    import dbus.bus

    bus = dbus.bus.BusConnection(args.bus)
    manager = bus.get_object("net.reactivated.Fprint", "/net/reactivated/Fprint/Manager")
    path = manager.GetDefaultDevice(dbus_interface="net.reactivated.Fprint.Manager", timeout=5)
    device = dbus.Interface(bus.get_object("net.reactivated.Fprint", path), "net.reactivated.Fprint.Device")
    device.Claim(args.user, timeout=5)
    reply = send_command(args.socket, args.command, 5.0)
    try:
        device.Release(timeout=5)
    except dbus.DBusException as error:
        out("RELEASE-FAILED", error.get_dbus_name())
    if reply is None:
        print("fprintd-world: the device did not listen on %s" % args.socket, file=sys.stderr)
        return 2
    sys.stdout.write(reply)
    return 0


def main():
    parser = argparse.ArgumentParser(description="The finger for fprintd's virtual reader.")
    sub = parser.add_subparsers(dest="action", required=True)
    send = sub.add_parser("send")
    send.add_argument("--socket", required=True)
    send.add_argument("--timeout", type=float, default=5.0)
    send.add_argument("command")
    feed = sub.add_parser("feed")
    feed.add_argument("--bus", required=True)
    feed.add_argument("--socket", required=True)
    feed.add_argument("--timeout", type=float, default=30.0)
    feed.add_argument("--enroll", action="store_true")
    feed.add_argument("--repeat-last", action="store_true")
    feed.add_argument("commands", nargs="*")
    claim = sub.add_parser("claim-send")
    claim.add_argument("--bus", required=True)
    claim.add_argument("--socket", required=True)
    claim.add_argument("--user", default="root")
    claim.add_argument("command")
    args = parser.parse_args()
    return {"send": cmd_send, "feed": cmd_feed, "claim-send": cmd_claim_send}[args.action](args)


if __name__ == "__main__":
    sys.exit(main())
