/// The effective options written back in configuration-file form, for `localauthctl check-config`.
extension Options {
  /// One `key=value` line per option, in the module's vocabulary; a derived reason is a comment line.
  package var settingLines: [String] {
    let e = evaluation
    var lines: [String] = ["policy=\(policy.name)"]
    lines.append(reason.map { "reason=\($0)" } ?? "# reason is derived from the PAM service")
    lines.append(fallbackTitle.map { "fallback_title=\($0)" } ?? "# fallback_title is the default for the policy")
    lines.append("reuse_duration=\(Self.number(reuseDuration))")
    lines.append("timeout=\(Self.number(e.sensorTimeout))")
    lines.append(feature.map { "feature=\($0)" } ?? "# feature is not set: every user is asked")
    lines.append("state_dir=\(stateDirectory)")
    lines.append(runtimeDirectory.map { "runtime_dir=\($0)" } ?? "# runtime_dir is \(runtimeRoot), derived from state_dir")
    lines.append("sensor=\(fprintd ? "fprintd" : sensor.map { $0 == .touchID ? "touchid" : "faceid" } ?? "none")")
    if fprintd { lines.append("fprint_dir=\(fprintDirectory)") }
    lines.append("event_expiry=\(Self.number(eventExpiry))")
    lines.append("lockout_threshold=\(e.lockoutThreshold)")
    lines.append("passcode_after_reboot=\(e.passcodeAfterReboot ? "yes" : "no")")
    lines.append("passcode_after_enrollment_change=\(e.passcodeAfterEnrollmentChange ? "yes" : "no")")
    lines.append("idle_limit=\(Self.number(e.idleLimit))")
    lines.append("passcode_max_age=\(Self.number(e.passcodeMaxAge))")
    lines.append("biometry_max_age=\(Self.number(e.biometryMaxAge))")
    lines.append("hash_cost=\(e.hasher.cost)")
    lines.append("keychain_max_items=\(keychain.limits.maxItems)")
    lines.append("keychain_max_bytes=\(keychain.limits.maxBytes)")
    lines.append("debug=\(debug ? "yes" : "no")")
    lines.append("nodelay=\(noDelay ? "yes" : "no")")
    lines.append("parallel_passcode=\(e.parallelPasscode ? "yes" : "no")")
    lines.append("gui_services=\(guiServices.joined(separator: ","))")
    lines.append("unlock_services=\(unlockServices.joined(separator: ","))")
    lines.append("terminal_programs=\(terminalPrograms.joined(separator: ","))")
    lines.append("locker_programs=\(lockerPrograms.joined(separator: ","))")
    lines.append("confirm=\(confirm ? "yes" : "no")")
    lines.append("app_dialog=\(appDialog ? "yes" : "no")")
    lines.append("helper=\(helperPath)")
    return lines
  }

  /// A number without a trailing ".0" when it is whole.
  static func number(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int(value)) }
    return String(value)
  }
}
