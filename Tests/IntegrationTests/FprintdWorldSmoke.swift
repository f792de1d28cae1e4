import Foundation
import LocalAuthTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The world itself, against Debian's pam_fprintd: an enrolled print matches, two other prints exhaust
/// max-tries=2. Prints how long start-up and one authentication take.
@Suite(
  "FprintdWorldSmoke", .serialized,
  .enabled(if: FprintdWorld.pamtesterAvailable && getuid() == 0, "Needs root, fprintd, python3-dbusmock, gdbus, pamtester, libpam-wrapper and libpam-fprintd."))
struct FprintdWorldSmoke {
  /// A temporary folder with a world, a test user with print-A enrolled, and a pam.d folder whose service
  /// `fprintd-test` is `auth required pam_fprintd.so max-tries=2 timeout=10` (and `other` denies).
  final class Fixture {
    let folder: String
    let user: String
    let world: FprintdWorld
    let serviceDir: String
    let service = "fprintd-test"

    init() throws {
      folder = try TemporaryFolder.make("/tmp/localauth-fp.XXXXXX", mode: 0o755)
      var rng = SystemRandomNumberGenerator()
      user = "latfp" + String(rng.next() as UInt32, radix: 16)
      serviceDir = folder + "/pam.d"
      do {
        let services = try PAMServiceFolder.create(serviceDir)
        try services.write(service, lines: ["auth required pam_fprintd.so max-tries=2 timeout=10"])
        try services.writeDenyingOther()
        try Users.add(user)
        world = try FprintdWorld(root: folder + "/fprintd")
      } catch {
        Users.remove(user)
        TemporaryFolder.remove(folder)
        throw error
      }
    }

    func tearDown() {
      let pids = world.pids
      world.stop()
      world.stop()
      #expect(pids.allSatisfy { !ProcessTree.alive($0) }, "a daemon outlived stop(): \(pids)")
      Users.remove(user)
      TemporaryFolder.remove(folder)
    }

    func authenticate(feeding commands: [String]) throws -> (run: PamtesterRun, feeder: Feeder, seconds: Double) {
      let feeder = try world.feed(commands)
      defer { feeder.stop() }
      let started = Date()
      let run = try world.pamtester(service: service, user: user, serviceDir: serviceDir)
      let seconds = Date().timeIntervalSince(started)
      feeder.waitDone(timeout: 2)
      return (run, feeder, seconds)
    }
  }

  @Test("pam_fprintd: the enrolled print matches")
  func match() throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    print("FPRINTD-WORLD: start-up (bus, polkit mock, fprintd) took \(Self.ms(fixture.world.startupSeconds))")
    let enrolStart = Date()
    try fixture.world.enroll(user: fixture.user)
    print("FPRINTD-WORLD: enrolment (fprintd-enroll, 5 stages) took \(Self.ms(Date().timeIntervalSince(enrolStart)))")
    #expect(fixture.world.enrolledFingers(user: fixture.user) == ["right-index-finger"])
    let files = fixture.world.printFiles(user: fixture.user)
    #expect(files == [fixture.world.printsFolder(user: fixture.user) + "/virtual_device/0/7"])

    let (run, feeder, seconds) = try fixture.authenticate(feeding: ["SCAN print-A"])
    print("FPRINTD-WORLD: one pam_fprintd authentication (match) took \(Self.ms(seconds))")
    #expect(run.verdict == PAMText.verdict("PAM_SUCCESS"), "\(run.run.stdout)\(run.run.stderr)\nfeeder:\n\(feeder.transcript)")
    #expect(feeder.statuses.map(\.result) == ["verify-match"], "\(feeder.transcript)")
  }

  @Test("pam_fprintd: two other prints exhaust max-tries=2")
  func noMatchTwice() throws {
    let fixture = try Fixture()
    defer { fixture.tearDown() }
    try fixture.world.enroll(user: fixture.user)
    let (run, feeder, seconds) = try fixture.authenticate(feeding: ["SCAN print-X", "SCAN print-X"])
    print("FPRINTD-WORLD: one pam_fprintd authentication (two no-matches) took \(Self.ms(seconds))")
    #expect(run.verdict == PAMText.verdict("PAM_MAXTRIES"), "\(run.run.stdout)\(run.run.stderr)\nfeeder:\n\(feeder.transcript)")
    #expect(feeder.statuses.map(\.result) == ["verify-no-match", "verify-no-match"], "\(feeder.transcript)")
    #expect(feeder.sent == ["SCAN print-X", "SCAN print-X"])
  }

  static func ms(_ seconds: Double) -> String { String(format: "%.0f ms", seconds * 1000) }
}
