import Foundation
import LocalAuthCore

/// The kind of biometry the device supports (Apple's `LABiometryType`, with Apple's raw values).
public enum LABiometryType: Int, Sendable, Hashable {
  /// No biometry is available.
  case none = 0
  /// A fingerprint sensor.
  case touchID = 1
  /// Face recognition.
  case faceID = 2
  /// Iris recognition (`1 << 2`); the simulated sensor never reports it.
  case opticID = 4

  /// The type that matches a core modality; nil (no sensor) is `.none`.
  init(_ modality: Modality?) {
    switch modality {
    case .touchID: self = .touchID
    case .faceID: self = .faceID
    case nil: self = .none
    }
  }
}

/// The longest reuse window a context honours, in seconds (Apple: 300): the core's one cap, which the helper and the
/// PAM module apply too (`EvaluationRequest.maximumReuseDuration`).
public let LATouchIDAuthenticationMaximumAllowableReuseDuration: TimeInterval = EvaluationRequest.maximumReuseDuration
