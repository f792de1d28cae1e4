import Foundation
import Glibc
import LocalAuthCore
import Testing

/// TPMSealer against swtpm (a software TPM 2.0, Debian's swtpm package) over tpm2-tss's swtpm TCTI.
@Suite("TPM: sealing a key to one TPM", .serialized)
struct TPMSealTests {
  /// A 32-byte key, as the keychain seals.
  let key: [UInt8] = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }

  @Test("a secret sealed with a TPM unseals to the same bytes")
  func roundTrip() throws {
    let tpm = try SoftwareTPM()
    let sealer = TPMSealer(tcti: tpm.tcti)
    let blob = try sealer.seal(key)
    #expect(Array(blob.prefix(4)) == Array("LAT1".utf8))
    #expect(!blob.contains(subsequence: key), "the blob holds the key in clear")
    #expect(try sealer.unseal(blob) == key)
    let longest = [UInt8](repeating: 0xa5, count: TPMSealer.maximumSecretLength)
    #expect(try sealer.unseal(sealer.seal(longest)) == longest)
    #expect(throws: TPMError.refused(code: 0x1d5)) { try sealer.seal(longest + [0]) }
    #expect(throws: TPMError.self) { try sealer.seal([]) }
  }

  @Test("after the TPM restarts on the same state, an earlier blob still unseals")
  func reboot() throws {
    let tpm = try SoftwareTPM()
    let blob = try TPMSealer(tcti: tpm.tcti).seal(key)
    tpm.stop()
    #expect(throws: TPMError.unreachable(tcti: tpm.tcti)) { try TPMSealer(tcti: tpm.tcti).unseal(blob) }
    try tpm.start()
    #expect(try TPMSealer(tcti: tpm.tcti).unseal(blob) == key)
  }

  @Test("another TPM cannot unseal the blob")
  func otherTPM() throws {
    let tpm = try SoftwareTPM()
    let blob = try TPMSealer(tcti: tpm.tcti).seal(key)
    let other = try SoftwareTPM()
    do throws(TPMError) {
      let secret = try TPMSealer(tcti: other.tcti).unseal(blob)
      Issue.record("another TPM unsealed \(secret.count) bytes")
    } catch {
      #expect(error.isRefusal, "another TPM gave \(error), not .refused")
    }
    #expect(try TPMSealer(tcti: tpm.tcti).unseal(blob) == key)
  }

  @Test("an altered blob is refused, a truncated one is malformed")
  func tampered() throws {
    let tpm = try SoftwareTPM()
    let sealer = TPMSealer(tcti: tpm.tcti)
    let blob = try sealer.seal(key)
    let privateStart = 4 + 2 + (Int(blob[4]) << 8 | Int(blob[5]))
    #expect(privateStart + 2 < blob.count)
    var flipped = blob
    flipped[privateStart + 2 + (blob.count - privateStart - 2) / 2] ^= 0x01
    do throws(TPMError) {
      let secret = try sealer.unseal(flipped)
      Issue.record("an altered blob unsealed to \(secret.count) bytes")
    } catch {
      #expect(error == .malformedBlob || error.isRefusal, "an altered blob gave \(error)")
    }
    #expect(throws: TPMError.malformedBlob) { try sealer.unseal(Array(blob.dropLast())) }
    #expect(throws: TPMError.malformedBlob) { try sealer.unseal(blob + [0]) }
    #expect(throws: TPMError.malformedBlob) { try sealer.unseal(Array(blob.prefix(5))) }
    #expect(throws: TPMError.malformedBlob) { try sealer.unseal([]) }
    var magic = blob
    magic[3] = UInt8(ascii: "2")
    #expect(throws: TPMError.malformedBlob) { try sealer.unseal(magic) }
    #expect(try sealer.unseal(blob) == key)
  }

  @Test("a blob sealed before the shim used tpm2-tss's structures still unseals, and new blobs have its layout")
  func oldBlob() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
      .appendingPathComponent("Fixtures/tpm-lat1")
    let tpm = try SoftwareTPM(state: fixtures.appendingPathComponent("tpm2-00.permall").path)
    let old = CryptoTests.hex(try String(contentsOf: fixtures.appendingPathComponent("blob.hex"), encoding: .utf8))
    #expect(old.count == 212)
    let sealer = TPMSealer(tcti: tpm.tcti)
    #expect(try sealer.unseal(old) == key, "the primary key's template changed, or the blob is read differently")
    let blob = try sealer.seal(key)
    // "LAT1", then the TPM2B_PUBLIC's size, type, nameAlg, attributes, authPolicy, scheme and unique's size.
    #expect(Array(blob.prefix(20)) == Array(old.prefix(20)), "the sealed object's template changed")
    #expect(blob.count == old.count)
    #expect(try sealer.unseal(blob) == key)
  }

  @Test("a TCTI where no TPM listens is unreachable, within seconds")
  func unreachable() throws {
    let tpm = try SoftwareTPM()
    let blob = try TPMSealer(tcti: tpm.tcti).seal(key)
    tpm.stop()
    let port = try #require(SoftwareTPM.freePorts(), "no free loopback port")
    let tcti = "swtpm:host=127.0.0.1,port=\(port)"
    let start = ContinuousClock.now
    #expect(throws: TPMError.unreachable(tcti: tcti)) { try TPMSealer(tcti: tcti).seal(key) }
    #expect(throws: TPMError.unreachable(tcti: tcti)) { try TPMSealer(tcti: tcti).unseal(blob) }
    #expect(throws: TPMError.unreachable(tcti: "device:/nonexistent/tpmrm0")) {
      try TPMSealer(tcti: "device:/nonexistent/tpmrm0").unseal(blob)
    }
    #expect(ContinuousClock.now - start < .seconds(5))
  }
}

/// One swtpm process on free loopback TCP ports (command port, control port + 1), with its state in a temporary
/// folder; stopped, and the folder removed, when released.
final class SoftwareTPM {
  /// What went wrong starting swtpm.
  struct Failure: Error, CustomStringConvertible {
    let description: String
  }

  let folder: String
  private(set) var port: UInt16 = 0
  private var process: Process?

  /// The tpm2-tss TCTI string for this TPM.
  var tcti: String { "swtpm:host=127.0.0.1,port=\(port)" }

  /// A fresh TPM, or one that starts on a copy of `state` (a tpm2-00.permall file another swtpm left).
  init(state: String? = nil) throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("swtpm-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: folder + "/state", withIntermediateDirectories: true)
    do {
      if let state { try FileManager.default.copyItem(atPath: state, toPath: folder + "/state/tpm2-00.permall") }
      try start()
    } catch {
      try? FileManager.default.removeItem(atPath: folder)
      throw error
    }
  }

  deinit {
    stop()
    try? FileManager.default.removeItem(atPath: folder)
  }

  /// Starts swtpm on the state folder (new ports each time), and waits until its command port accepts.
  func start() throws {
    let candidates = ["/usr/bin/swtpm", "/usr/local/bin/swtpm"]
    guard let executable = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
      throw Failure(description: "swtpm is not installed: install the Debian package swtpm (make test installs it)")
    }
    let libraries = [
      "libtss2-esys.so.0": "libtss2-esys-3.0.2-0", "libtss2-mu.so.0": "libtss2-mu0",
      "libtss2-tctildr.so.0": "libtss2-tctildr0", "libtss2-tcti-swtpm.so.0": "libtss2-tcti-swtpm0",
    ]
    for (library, package) in libraries.sorted(by: { $0.key < $1.key }) where dlopen(library, RTLD_NOW) == nil {
      throw Failure(description: "\(library) is missing: install the Debian package \(package) (make test installs it)")
    }
    for _ in 0..<5 {
      guard let port = Self.freePorts() else { continue }
      let process = Process()
      process.executableURL = URL(fileURLWithPath: executable)
      process.arguments = [
        "socket", "--tpm2", "--tpmstate", "dir=\(folder)/state",
        "--server", "type=tcp,port=\(port),bindaddr=127.0.0.1",
        "--ctrl", "type=tcp,port=\(port + 1),bindaddr=127.0.0.1",
        "--flags", "not-need-init,startup-clear",
      ]
      _ = FileManager.default.createFile(atPath: folder + "/swtpm.log", contents: nil)
      let log = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/swtpm.log"))
      process.standardOutput = log
      process.standardError = log
      try process.run()
      try? log.close()
      self.process = process
      self.port = port
      let deadline = ContinuousClock.now + .seconds(10)
      while process.isRunning, ContinuousClock.now < deadline {
        if Self.accepts(port) { return }
        usleep(20_000)
      }
      stop()  // exited (a port was taken meanwhile) or never listened: try other ports
    }
    let log = (try? String(contentsOfFile: folder + "/swtpm.log", encoding: .utf8)) ?? ""
    throw Failure(description: "swtpm did not start: \(log)")
  }

  /// Stops swtpm at once, as a power cut would (SIGKILL: Process.terminate's SIGTERM stays blocked in a child
  /// spawned from a test's thread, which blocks most signals), and waits for it.
  func stop() {
    guard let process else { return }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    self.process = nil
  }

  /// A port P such that P and P + 1 are both free on 127.0.0.1 now.
  static func freePorts() -> UInt16? {
    for _ in 0..<50 {
      guard let first = bound(0) else { return nil }
      defer { close(first.socket) }
      guard first.port < 65535, let second = bound(first.port + 1) else { continue }
      close(second.socket)
      return first.port
    }
    return nil
  }

  /// A TCP socket bound to 127.0.0.1:port (0 picks one), and its port.
  private static func bound(_ port: UInt16) -> (socket: Int32, port: UInt16)? {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return nil }
    var address = loopback(port)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
      }
    }
    guard ok else {
      close(fd)
      return nil
    }
    return (fd, UInt16(bigEndian: address.sin_port))
  }

  /// True when something accepts connections on 127.0.0.1:port.
  private static func accepts(_ port: UInt16) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = loopback(port)
    return withUnsafePointer(to: &address) { pointer in
      pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
      }
    }
  }

  private static func loopback(_ port: UInt16) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = UInt32(0x7f00_0001).bigEndian
    return address
  }
}

extension TPMError {
  /// True for `.refused`, whatever the code.
  fileprivate var isRefusal: Bool {
    if case .refused = self { return true }
    return false
  }
}

extension Array where Element == UInt8 {
  /// True when `needle` occurs in these bytes.
  fileprivate func contains(subsequence needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, needle.count <= count else { return needle.isEmpty }
    return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
  }
}
