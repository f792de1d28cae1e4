/// One capture from the sensor: a feature vector and a capture-quality figure, never a verdict.
public struct BiometricSample: Equatable, Sendable {
  /// The modality that captured it.
  package var modality: Modality
  /// The capture quality the sensor measured, from 0 (nothing usable) to 1 (perfect).
  package var quality: Double
  /// The feature vector, unit length.
  package var features: [Float]

  /// Creates a sample.
  public init(modality: Modality, quality: Double, features: [Float]) {
    self.modality = modality
    self.quality = quality
    self.features = features
  }

  /// Below this quality the sensor asks for another capture instead of matching (like fprintd's retry-scan).
  package static let minimumUsableQuality = 0.2
}

/// One enrolled finger or appearance: a name and the template built from its enrollment samples.
public struct BiometricTemplate: Equatable, Sendable {
  /// The name the administrator gave it ("right-index").
  package var name: String
  /// The modality it was enrolled with.
  package var modality: Modality
  /// The template vector, unit length.
  package var features: [Float]
  /// When it was enrolled.
  package var enrolledAt: WallTime

  /// Creates a template.
  public init(name: String, modality: Modality, features: [Float], enrolledAt: WallTime) {
    self.name = name
    self.modality = modality
    self.features = features
    self.enrolledAt = enrolledAt
  }
}
