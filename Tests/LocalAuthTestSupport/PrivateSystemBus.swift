/// A private D-Bus "system" bus for the fprintd worlds of the integration tests and the benchmark: the programs it
/// runs and the bus configuration that lets every test process own and call any name on it (polkit is mocked).
package enum PrivateSystemBus {
  /// The bus daemon.
  package static let daemon = "/usr/bin/dbus-daemon"
  /// The command-line client the worlds use to wait for names and call methods.
  package static let gdbus = "/usr/bin/gdbus"
  /// Debian's interpreter, which has python3-dbusmock (`python3` on PATH may be another one).
  package static let python = "/usr/bin/python3"

  /// The bus's address for clients (DBUS_SYSTEM_BUS_ADDRESS) when it listens on `socket`.
  package static func address(socket: String) -> String { "unix:path=" + socket }

  /// The configuration file's text for a bus of type system listening on `socket`, open to everyone.
  package static func configuration(socket: String) -> String {
    """
    <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
     "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
    <busconfig>
      <type>system</type>
      <listen>unix:path=\(socket)</listen>
      <auth>EXTERNAL</auth>
      <policy context="default">
        <allow user="*"/>
        <allow own="*"/>
        <allow send_destination="*"/>
        <allow receive_sender="*"/>
        <allow eavesdrop="true"/>
      </policy>
    </busconfig>

    """
  }
}
