import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

extension RealPAM {
  /// The installed-shape module loads with every symbol resolved and exports only the six entry points.
  @Suite("Module shape")
  struct ModuleLoadTests {
    static let entryPoints = [
      "pam_sm_authenticate", "pam_sm_setcred", "pam_sm_acct_mgmt", "pam_sm_chauthtok", "pam_sm_open_session",
      "pam_sm_close_session",
    ]

    @Test("dlopen(RTLD_NOW) resolves every pam_sm_* and nothing else")
    func dlopenNow() throws {
      let opened = dlopen(Artifacts.module, RTLD_NOW | RTLD_LOCAL)
      let failure = opened == nil ? dlerror().map { String(cString: $0) } ?? "?" : ""
      let handle = try #require(opened, "dlopen failed: \(failure)")
      // The module is linked -z nodelete, so it stays loaded; dlclose only drops the reference.
      defer { dlclose(handle) }
      for name in Self.entryPoints {
        #expect(dlsym(handle, name) != nil, "\(name) is missing")
      }
      #expect(dlsym(handle, "nonexistent") == nil)
      // The statically linked Swift runtime stays private.
      #expect(dlsym(handle, "swift_retain") == nil)
      #expect(dlsym(handle, "$ss5printyyypd_SS9separatorSS10terminatortF") == nil)
    }

    @Test("nm -D --defined-only shows only the six pam_sm_* entry points")
    func exports() throws {
      let run = try Run.checked("/usr/bin/nm", ["-D", "--defined-only", Artifacts.module])
      let exported = run.stdoutLines.compactMap { line -> String? in
        let fields = line.split(separator: " ")
        guard fields.count == 3, fields[1].uppercased() == fields[1] else { return nil }
        return String(fields[2])
      }
      #expect(exported.sorted() == Self.entryPoints.sorted())
    }

    @Test("needs no Swift runtime library and is marked NODELETE")
    func dynamicSection() throws {
      let run = try Run.checked("/usr/bin/readelf", ["-d", Artifacts.module])
      let needed = run.stdoutLines.filter { $0.contains("(NEEDED)") }
      #expect(!needed.isEmpty)
      #expect(!needed.contains { $0.contains("libswift") || $0.contains("Foundation") }, "\(needed)")
      #expect(run.stdoutLines.contains { $0.contains("FLAGS_1") && $0.contains("NODELETE") })
    }
  }
}
