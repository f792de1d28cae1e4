/// A duration in whole seconds, rounded up, for messages: never traps, whatever the clock or a state file says.
///
/// `Int(Double)` traps on NaN, infinities and values beyond Int's range, and a trap in the module kills the
/// host process (sudo, login); a broken clock or an absurd time in a state file must not do that.
package func wholeSeconds(_ seconds: Double) -> Int {
  guard seconds.isFinite else { return seconds > 0 ? maximumWholeSeconds : 0 }
  return Int(min(max(seconds, 0), Double(maximumWholeSeconds)).rounded(.up))
}

/// The largest duration messages show: about 31,700 years.
package let maximumWholeSeconds = 1_000_000_000_000
