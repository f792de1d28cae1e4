@testable import LocalAuthCore
import Testing

/// `Modality(name:)`: the names `sensor=` accepts, in any ASCII case, and nothing that only
/// looks like them (the parser folds ASCII case only, issue 29 item 7).
@Suite("Modality names")
struct ModalityNameTests {
  @Test("Modality(name:): touchid, touch, faceid and face in any case")
  func acceptedNames() {
    #expect(Modality(name: "touchid") == .touchID)
    #expect(Modality(name: "TouchID") == .touchID)
    #expect(Modality(name: "TOUCH") == .touchID)
    #expect(Modality(name: "faceid") == .faceID)
    #expect(Modality(name: "FaceID") == .faceID)
    #expect(Modality(name: "Face") == .faceID)
  }

  @Test("Modality(name:): other names, look-alike letters and padding are refused")
  func refusedNames() {
    for name in ["", "finger", "touch id", " touchid", "touchİd", "tоuch", "ｆａｃｅ", "faceid\u{0}"] {
      #expect(Modality(name: name) == nil, "\(name)")
    }
  }
}
