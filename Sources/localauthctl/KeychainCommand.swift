import ArgumentParser
import LocalAuthCore

extension LocalAuthCtl {
  /// Lists or deletes a user's keychain items: names and access control, never their data.
  struct KeychainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "keychain", abstract: "List or delete a user's keychain items (never their data).",
      subcommands: [ListItems.self, DeleteItems.self])

    /// `keychain list USER`.
    struct ListItems: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List a user's keychain items: service, account, access group, label, class, access control.")

      @OptionGroup var common: CommonOptions
      @Argument(help: "The user.") var user: String
      @Flag(help: "Print JSON.") var json = false

      func validate() throws { _ = try userName(user) }

      func run() throws {
        try reporting {
          let name = try userName(user)
          let keychain = try KeychainLine.keychain(try common.context())
          let items = try keychain.items(for: name)
          if json {
            print(JSONValue.array(items.map(KeychainLine.json)).rendered())
            return
          }
          print(KeychainLine(user: name, keychain: keychain).text)
          for item in items { print("  " + KeychainLine.row(item)) }
        }
      }
    }

    /// `keychain delete USER [--service S] [--account A] [--group G] | --all`.
    struct DeleteItems: ParsableCommand {
      static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete a user's keychain items selected by service, account and access group (or --all).")

      @OptionGroup var common: CommonOptions
      @Argument(help: "The user.") var user: String
      @Option(help: "Only items of this service.") var service: String?
      @Option(help: "Only items of this account.") var account: String?
      @Option(help: ArgumentHelp("Only items of this access group (\"\" for items without one).", valueName: "group"))
      var group: String?
      @Flag(help: "Every item of the user.") var all = false

      func validate() throws {
        _ = try userName(user)
        if !all && service == nil && account == nil && group == nil {
          throw ValidationError("Give --service, --account, --group, or --all.")
        }
        if all && (service != nil || account != nil || group != nil) {
          throw ValidationError("--all takes no --service, --account or --group.")
        }
      }

      func run() throws {
        try reporting {
          let name = try userName(user)
          let keychain = try KeychainLine.keychain(try common.context())
          let deleted: [KeychainItem]
          do {
            deleted = try keychain.delete(
              Keychain.Query(service: service, account: account, accessGroup: group, includesReservedGroups: true), for: name)
          } catch KeychainError.itemNotFound {
            deleted = []
          }
          guard !deleted.isEmpty else { throw CommandFailure("No keychain item of \(user) matches.") }
          print("Deleted \(deleted.count) keychain item\(deleted.count == 1 ? "" : "s") of \(user).")
        }
      }
    }
  }
}

/// A user's keychain as `status` and `keychain list` show it.
struct KeychainLine {
  let count: Int
  let protection: DeviceKeyProtection?

  init(user: UserName, keychain: Keychain) {
    count = (try? keychain.items(for: user).count) ?? 0
    protection = try? keychain.protection(for: user)
  }

  /// The keychain of the effective options.
  static func keychain(_ context: CommandContext) throws -> Keychain {
    guard let keychain = context.dependencies.keychain else { throw CommandFailure("This configuration has no keychain.") }
    return keychain
  }

  /// "Keychain: 2 items; device key sealed by the TPM (device:/dev/tpmrm0)."
  var text: String {
    let items = count == 0 ? "no items" : "\(count) item\(count == 1 ? "" : "s")"
    let key = protection.map { "device key \($0)" } ?? "no device key yet"
    return "Keychain: \(items); \(key)."
  }

  var json: JSONValue {
    let kind: JSONValue =
      switch protection {
      case .tpm: .string("tpm")
      case .keyFile: .string("keyFile")
      case nil: .null
      }
    var members: [(String, JSONValue)] = [("items", .int(count)), ("protection", kind)]
    if case .tpm(let tcti) = protection { members.append(("tcti", .string(tcti))) }
    return .object(members)
  }

  /// One item: names, access group and access control, never the data. The names are the apps' own text, quoted
  /// with `quoted` so that none can end its line or its quotes and pass for another item.
  static func row(_ item: KeychainItem) -> String {
    "service \(quoted(item.service)), account \(quoted(item.account)), \(group(item.accessGroup)), label \(quoted(item.label)); "
      + "\(item.accessibility.name); access control \(item.flags?.names ?? "none"); "
      + "key \(item.keySource == .passcode ? "passcode" : "device")"
  }

  /// The access group as a row shows it: `group "com.example.notes"`, `no group`, or a reserved group with whose it
  /// is (`group "pam_localauth.module" (reserved: the module's)`), so that an app's item named like the login
  /// secret is told from the module's (issue 37, finding V).
  static func group(_ name: String) -> String {
    if name.isEmpty { return "no group" }
    let owner =
      name == KeychainOptions.moduleAccessGroup ? " (reserved: the module's)"
      : name == RightStore.accessGroup ? " (reserved: LARightStore's)" : ""
    return "group " + quoted(name) + owner
  }

  /// `text` in double quotes, with `"`, backslashes, control characters (C0, DEL, C1) written as `\xNN` and the
  /// direction marks and overrides (U+200E, U+200F, U+202A–U+202E, U+2066–U+2069) as `\u{NNNN}`: the rest of the
  /// text, other languages included, as it is.
  static func quoted(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
      let value = scalar.value
      let hex = String(value, radix: 16, uppercase: true)
      if value < 0x20 || (0x7F...0x9F).contains(value) || scalar == "\"" || scalar == "\\" {
        out += "\\x" + (hex.count < 2 ? "0" : "") + hex
      } else if value == 0x200E || value == 0x200F || (0x202A...0x202E).contains(value) || (0x2066...0x2069).contains(value) {
        out += "\\u{" + hex + "}"
      } else {
        out.unicodeScalars.append(scalar)
      }
    }
    return out + "\""
  }

  static func json(_ item: KeychainItem) -> JSONValue {
    .object([
      ("service", .string(item.service)), ("account", .string(item.account)),
      ("accessGroup", .string(item.accessGroup)), ("reservedGroup", .bool(Keychain.isReserved(item.accessGroup))),
      ("label", .string(item.label)),
      ("accessible", .string(item.accessibility.name)), ("accessControl", item.flags.map { .string($0.names) } ?? .null),
      ("key", .string(item.keySource.rawValue)), ("created", .int(Int(item.created))),
    ])
  }
}
