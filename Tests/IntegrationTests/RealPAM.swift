import Testing

/// Every test that drives the built module through real PAM. Serialized: the tests create system users
/// and spawn processes, and each builds its own sandbox (see Support/Sandbox.swift).
@Suite("Real PAM", .serialized, .enabled(if: Artifacts.available, Artifacts.skipMessage))
enum RealPAM {}
