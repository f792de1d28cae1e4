import Foundation
@testable import LocalAuthCore
import Testing

/// How fprintd's results and prints become Apple's rules (docs/RULES.md, "Real readers through fprintd").
@Suite("fprintd: results and domain state")
struct FprintdMappingTests {
  @Test("each VerifyStatus result maps to a match, a no-match, a retry or a lost reader")
  func results() {
    #expect(FprintdSensor.event("verify-match", finger: "right-index-finger") == .reader(.match(item: "right-index-finger")))
    #expect(FprintdSensor.event("verify-match", finger: nil) == .reader(.match(item: "finger")))
    #expect(FprintdSensor.event("verify-no-match", finger: "left-thumb") == .reader(.noMatch))
    for retry in ["verify-retry-scan", "verify-swipe-too-short", "verify-finger-not-centered", "verify-remove-and-retry"] {
      guard case .reader(.retry) = FprintdSensor.event(retry, finger: nil) else {
        Issue.record("\(retry) is not a retry")
        continue
      }
    }
    for lost in ["verify-disconnected", "verify-unknown-error", "something-new"] {
      guard case .reader(.lost) = FprintdSensor.event(lost, finger: nil) else {
        Issue.record("\(lost) does not end biometry")
        continue
      }
    }
  }

  @Test("a finger's name is spoken as the prompt says it")
  func spoken() {
    #expect(FprintdSensor.spoken("right-index-finger") == "right index finger")
    #expect(FprintdSensor.spoken("left-thumb") == "left thumb")
    #expect(FprintdSensor.spoken("any") == "any finger")
    #expect(FprintdSensor.spoken("\u{1b}[2J") == "finger")
  }

  @Test("the prints' digest is stable, changes with any print's bytes, and follows no symbolic link")
  func digest() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("fprint-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: root) }
    let folder = root + "/alice/virtual_device/0"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    #expect(PrintsDigest.of(folder: root + "/alice") == nil)
    try Data("FP3 print-A".utf8).write(to: URL(fileURLWithPath: folder + "/7"))
    let first = try #require(PrintsDigest.of(folder: root + "/alice"))
    #expect(PrintsDigest.of(folder: root + "/alice") == first)
    try Data("FP3 print-B".utf8).write(to: URL(fileURLWithPath: folder + "/7"))
    let reenrolled = try #require(PrintsDigest.of(folder: root + "/alice"))
    #expect(reenrolled != first)
    try Data("FP3 print-B".utf8).write(to: URL(fileURLWithPath: folder + "/6"))
    #expect(PrintsDigest.of(folder: root + "/alice") != reenrolled)
    try FileManager.default.removeItem(atPath: folder + "/6")
    try FileManager.default.createSymbolicLink(atPath: folder + "/8", withDestinationPath: "/etc/hostname")
    #expect(PrintsDigest.of(folder: root + "/alice") == reenrolled)
    #expect(ReaderEnrollment(items: [], domainState: "x").domainState == nil)
  }
}
