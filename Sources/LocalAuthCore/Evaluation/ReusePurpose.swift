/// What a biometric match was made for, and so what its reuse window may serve (docs/RULES.md, rule 7).
///
/// Apple's window lets "a successful Lock Screen biometric unlock" count and "does not reuse matches made in-app
/// or in other apps". On Linux the Lock Screen is a session unlock: a console login, a display manager or a
/// screen locker (`unlock_services=`). sudo's match serves sudo, as sudo's own timestamps do; an app's match
/// serves nothing else; apps may reuse only a session unlock.
public enum ReusePurpose: Hashable, Sendable {
  /// A login, display manager or screen locker unlocked the session (a service in `unlock_services=`).
  case sessionUnlock
  /// A PAM service's own request (sudo, su, …), by service name.
  case service(String)
  /// An app's request through `LAContext` or the keychain, by the executable's path.
  case app(String)

  /// The services whose matches are session unlocks by default: consoles, display managers and greeters, the
  /// screen lockers of `RequestVisibility.defaultGUIServices`, and vlock.
  package static let defaultUnlockServices = [
    "login", "gdm-password", "gdm-fingerprint", "lightdm", "sddm", "greetd", "cosmic-greeter", "xscreensaver",
    "gnome-screensaver", "cinnamon-screensaver", "mate-screensaver", "xfce4-screensaver", "kde", "kscreenlocker",
    "swaylock", "i3lock", "hyprlock", "vlock", "vlock-main",
  ]

  /// The purpose of a PAM request from `service`: a session unlock when `unlockServices` names it, else the
  /// service's own.
  package static func pam(service: String, unlockServices: [String]) -> ReusePurpose {
    let name = RequestOrigin.token(service)
    return unlockServices.contains(name) ? .sessionUnlock : .service(name)
  }

  /// The purpose of an app's request: the executable as the kernel names it (/proc/PID/exe), reduced as the
  /// state file writes it, or "unknown" when it cannot be read (an app stamp is never reused, so the name only
  /// tells stamps apart).
  package static func app(processID: Int32) -> ReusePurpose {
    guard let path = Syscalls.linkTarget("/proc/\(processID)/exe", capacity: 4095) else { return .app("unknown") }
    return .app(name(path))
  }

  /// The form written in the state file: `unlock`, `service:NAME` or `app:PATH`, with no space and at most 200
  /// printable ASCII bytes of name (any other byte becomes "?").
  package var token: String {
    switch self {
    case .sessionUnlock: "unlock"
    case .service(let name): "service:" + Self.name(name)
    case .app(let path): "app:" + Self.name(path)
    }
  }

  /// Reads a token written by `token`; nil for anything else.
  public init?(token: Substring) {
    if token == "unlock" {
      self = .sessionUnlock
      return
    }
    guard let colon = token.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
    let kind = token[..<colon]
    let name = String(token[token.index(after: colon)...])
    guard !name.isEmpty, Self.name(name) == name else { return nil }
    switch kind {
    case "service": self = .service(name)
    case "app": self = .app(name)
    default: return nil
    }
  }

  /// `text` reduced to printable ASCII without spaces, at most 200 bytes, "?" for any other byte; "-" when empty.
  static func name(_ text: String) -> String {
    text.isEmpty ? "-" : LogText.token(text, limit: 200)
  }
}
