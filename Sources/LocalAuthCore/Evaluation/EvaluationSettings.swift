/// The tunable rules of an evaluation; the defaults are Apple's values (docs/RULES.md, rules 3–6).
public struct EvaluationSettings: Equatable, Sendable {
  /// Consecutive failed matches that lock biometry (Apple: 5).
  package var lockoutThreshold = 5
  /// The escalating passcode delays.
  package var delaySchedule = DelaySchedule.apple
  /// Seconds the sensor waits for each attempt before the system cancels (fprintd's default is 30).
  package var sensorTimeout: Double = 30
  /// Require the passcode after a reboot.
  package var passcodeAfterReboot = true
  /// Require the passcode after this long without any successful authentication (0 disables; Apple: 48 h).
  package var idleLimit: Double = 48 * 3600
  /// With `biometryMaxAge`: require the passcode when it was not used for this long (0 disables; Apple: 156 h).
  package var passcodeMaxAge: Double = 156 * 3600
  /// With `passcodeMaxAge`: … and biometry was not used for this long (Apple: 4 h).
  package var biometryMaxAge: Double = 4 * 3600
  /// Require the passcode after an enrollment change.
  package var passcodeAfterEnrollmentChange = true
  /// The passcode hash's cost.
  package var hasher = PasscodeHasher()
  /// The shortest passcode that may be set.
  package var passcodeMinimumLength = 4
  /// Which secret the passcode prompt checks: the module's own passcode, or the login password (`passcode=`).
  package var passcodeSource = PasscodeSource.separate
  /// One prompt takes the finger or the typed passcode, whichever comes first, where the prompter can read
  /// while the sensor waits (`parallel_passcode`; ParallelEntry.swift).
  package var parallelPasscode = false
  /// The administrator's cap on every reuse window in seconds, the app's requested one included (`reuse_duration`;
  /// 0 = no window anywhere). Apple's default is no cap below its own 300 s; `Options` starts from 0.
  package var reuseLimit: Double = EvaluationRequest.maximumReuseDuration

  /// Apple's defaults.
  public init() {}
}

/// What a caller asks for: whose authentication, under which policy, and how to present it.
public struct EvaluationRequest {
  /// The user to authenticate.
  package var user: UserName
  /// The policy.
  package var policy: AuthPolicy
  /// Why the caller asks; must not be empty.
  package var reason: String
  /// The fallback button's title: nil for the default, empty to hide it.
  package var fallbackTitle: String?
  /// The cancel button's title: nil or empty mean "Cancel".
  package var cancelTitle: String?
  /// Seconds a recent biometric match may be reused (0 = never; capped at 300).
  package var reuseDuration: Double
  /// False when no UI may be shown (notInteractive).
  package var interactionAllowed: Bool
  /// True for remote sessions, which never use biometry.
  package var remote: Bool
  /// True when the person at the machine cannot see the request (RequestVisibility): no biometry, no reuse.
  package var hidden = false
  /// True when the user must press Enter before the finger is asked for (`confirm`).
  package var confirm = false
  /// The screen locker that asks, when it is one named in `locker_programs=` (`ScreenLocker`): its conversation
  /// answers the echo-off prompt at once with what was typed before Return, so the passcode prompt comes before
  /// the finger (`LockerAnswer`). nil for every other caller.
  package var screenLocker: String?
  /// Set by the caller to cancel a running evaluation (appCancel).
  package var cancellation: CancellationFlag?
  /// Who asks and from where: named on the prompt, stamped on failures, the reuse window's scope.
  package var origin: RequestOrigin
  /// What a match is made for, stamped with it, and which stamps this request may reuse (rule 7). Defaults to the
  /// origin's service's own.
  package var purpose: ReusePurpose
  /// Receives a copy of the passcode when it is accepted (the keychain opens passcode-keyed items with it).
  package var passcodeCapture: PasscodeCapture?
  /// Asks again whether the request is still visible at the machine (docs/RULES.md, "Visibility holds for the
  /// whole wait"): nil while it is, else why it no longer is. The biometric prompt asks in its wait and before a
  /// match is granted, the evaluator before a reuse. nil when there is nothing to recheck (a remote or hidden
  /// request, no sensor).
  package var visibilityRecheck: (() -> String?)?
  /// Shows a hidden request in the desktop's own dialog instead (an app without a visible terminal: PolkitDialog)
  /// and returns its outcome, or nil when it could show none; nil when there is none. Without a dialog a hidden
  /// request gets no finger.
  package var systemDialog: (() -> EvaluationOutcome?)?

  /// Describes an evaluation.
  public init(
    user: UserName, policy: AuthPolicy, reason: String, fallbackTitle: String? = nil, cancelTitle: String? = nil,
    reuseDuration: Double = 0, interactionAllowed: Bool = true, remote: Bool = false,
    cancellation: CancellationFlag? = nil, origin: RequestOrigin = RequestOrigin()
  ) {
    self.origin = origin
    self.purpose = .service(origin.service)
    self.user = user
    self.policy = policy
    self.reason = reason
    self.fallbackTitle = fallbackTitle
    self.cancelTitle = cancelTitle
    self.reuseDuration = reuseDuration
    self.interactionAllowed = interactionAllowed
    self.remote = remote
    self.cancellation = cancellation
  }

  /// Apple's cap on the reuse window in seconds, the one written in the tree: LocalAuthentication's public
  /// LATouchIDAuthenticationMaximumAllowableReuseDuration, the helper's app calls, `reuse_duration=` and localauthctl
  /// all take it from here.
  package static let maximumReuseDuration: Double = 300

  /// The fallback title shown, or nil when hidden.
  package var effectiveFallbackTitle: String? {
    guard let title = fallbackTitle else {
      return policy == .deviceOwnerAuthentication ? "Enter Passcode" : "Enter Password"
    }
    return title.isEmpty ? nil : title
  }

  /// The fallback title shown when the passcode is `source`: with the login password, macOS's default
  /// "Enter Password" under both policies; a title the caller set, or hid, stays as it is.
  package func fallbackTitle(passcode source: PasscodeSource) -> String? {
    guard source == .account, fallbackTitle == nil else { return effectiveFallbackTitle }
    return "Enter Password"
  }

  /// The cancel title shown: nil or empty give "Cancel".
  package var effectiveCancelTitle: String { cancelTitle.flatMap { $0.isEmpty ? nil : $0 } ?? "Cancel" }
}

/// A flag one thread sets to cancel an evaluation running on another.
public final class CancellationFlag: @unchecked Sendable {
  private let lock = Mutex()
  private var cancelled = false

  /// Creates an unset flag.
  public init() {}

  /// Sets the flag.
  package func cancel() { lock.withLock { cancelled = true } }

  /// True once `cancel()` was called.
  package var isCancelled: Bool { lock.withLock { cancelled } }
}

/// Mistakes of the calling program, not of the user (Apple raises NSInvalidArgumentException for these).
public enum UsageError: Error, Equatable, Sendable, CustomStringConvertible {
  /// `localizedReason` was empty.
  case emptyReason

  public var description: String {
    switch self {
    case .emptyReason: "the reason shown to the user is empty"
    }
  }
}

extension EvaluationSettings {
  /// Apple's defaults with no reuse window (`reuseLimit` 0), as the module starts before `reuse_duration=`.
  package static var withoutReuse: EvaluationSettings {
    var settings = EvaluationSettings()
    settings.reuseLimit = 0
    return settings
  }
}
