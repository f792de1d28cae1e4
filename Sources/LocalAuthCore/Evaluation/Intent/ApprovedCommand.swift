/// What a finger approves, in words for the prompt (docs/RULES.md, "Intent"): for `sudo apt upgrade`, "run
/// `apt upgrade` as root (sudo)"; for `su alice`, "open a shell as alice (su)". Read from the command line of the
/// process that called PAM (/proc/PID/cmdline), as Apple's sheet names the app that asks.
///
/// The command is escaped so that a crafted command line cannot forge the prompt's text, add lines or blur where
/// an argument ends: printable ASCII stays, a `'`, a backtick or a backslash and every other byte (control
/// characters, escape sequences, any non-ASCII byte) becomes `\xNN`, an argument with a space is single-quoted,
/// and a command longer than `maximumLength` characters is cut visibly (`escape`).
package enum ApprovedCommand {
  /// The longest command shown, in characters, before the "... (cut: N more bytes)" that ends a cut one.
  package static let maximumLength = 80

  /// The phrase after "Place your finger on the sensor to " for a request of `service` whose caller's command
  /// line is `cmdline` (arguments separated by NUL bytes); nil when the program is neither su nor sudo.
  package static func phrase(cmdline: [UInt8], service: String) -> String? {
    var arguments = cmdline.split(separator: 0, omittingEmptySubsequences: false).map(Array.init)
    if arguments.last?.isEmpty == true { arguments.removeLast() }
    guard let first = arguments.first else { return nil }
    let program = first.split(separator: UInt8(ascii: "/")).last.map { String(decoding: $0, as: UTF8.self) } ?? ""
    let service = RequestOrigin.token(service)
    let parsed: (command: [[UInt8]], target: String, shell: Bool)
    switch program {
    case "sudo", "sudoedit": parsed = sudo(Array(arguments.dropFirst()), editing: program == "sudoedit")
    case "su": parsed = su(Array(arguments.dropFirst()))
    case RequestVisibility.polkitHelper: return polkitPhrase(agent: nil, service: service)
    default: return nil
    }
    let target = RequestOrigin.token(parsed.target)
    if !parsed.command.isEmpty { return "run `\(escape(parsed.command))` as \(target) (\(service))" }
    if parsed.shell { return "open a shell as \(target) (\(service))" }
    return "run `\(escape(arguments))` (\(service))"
  }

  /// The phrase for polkit's helper: polkit's agent draws the request (the action and its message, which only
  /// polkitd and the agent know), so the prompt points at it, naming the agent when its name is known:
  /// "approve the request pkttyagent shows (polkit-1)".
  package static func polkitPhrase(agent: String?, service: String) -> String {
    let shower = agent.map { RequestOrigin.token($0) } ?? "your polkit agent"
    return "approve the request " + shower + " shows (" + RequestOrigin.token(service) + ")"
  }

  /// sudo's command after its options, its target user (-u, else root), and whether it opens a shell (-s, -i).
  static func sudo(_ arguments: [[UInt8]], editing: Bool) -> (command: [[UInt8]], target: String, shell: Bool) {
    let withValue: Set<UInt8> = Set("CDgpRrTtUu".utf8)
    let longWithValue: Set<String> = [
      "--close-from", "--chdir", "--group", "--host", "--prompt", "--chroot", "--role", "--type",
      "--command-timeout", "--other-user", "--user",
    ]
    var target = "root"
    var shell = false
    var edit = editing
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      let text = String(decoding: argument, as: UTF8.self)
      if text == "--" { index += 1; break }
      guard argument.count >= 2, argument[0] == UInt8(ascii: "-") else { break }
      if text.hasPrefix("--") {
        let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
        var value: String?
        if text.contains("=") { value = String(text.split(separator: "=", maxSplits: 1).last ?? "") }
        if longWithValue.contains(name), value == nil, index + 1 < arguments.count {
          index += 1
          value = String(decoding: arguments[index], as: UTF8.self)
        }
        if name == "--user", let value { target = value }
        if name == "--shell" || name == "--login" { shell = true }
        if name == "--edit" { edit = true }
        index += 1
        continue
      }
      var position = 1
      while position < argument.count {
        let flag = argument[position]
        if flag == UInt8(ascii: "s") || flag == UInt8(ascii: "i") { shell = true }
        if flag == UInt8(ascii: "e") { edit = true }
        if withValue.contains(flag) {
          var value = Array(argument[(position + 1)...])
          if value.isEmpty, index + 1 < arguments.count {
            index += 1
            value = arguments[index]
          }
          if flag == UInt8(ascii: "u") { target = String(decoding: value, as: UTF8.self) }
          break
        }
        position += 1
      }
      index += 1
    }
    var command = Array(arguments[min(index, arguments.count)...])
    if edit, !command.isEmpty { command.insert(Array("sudoedit".utf8), at: 0) }
    return (command, target, shell)
  }

  /// su's command (-c), its target user (the first operand, else root), and whether it opens a shell.
  static func su(_ arguments: [[UInt8]]) -> (command: [[UInt8]], target: String, shell: Bool) {
    let withValue: Set<UInt8> = Set("cCgGsw".utf8)
    var target: String?
    var command: [[UInt8]] = []
    var index = 0
    while index < arguments.count {
      let argument = arguments[index]
      let text = String(decoding: argument, as: UTF8.self)
      index += 1
      if text == "-" { continue }
      if text == "--" {
        if target == nil, index < arguments.count { target = String(decoding: arguments[index], as: UTF8.self) }
        break
      }
      if text.hasPrefix("--") {
        let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
        let takes = ["--command", "--session-command", "--group", "--supp-group", "--shell", "--whitelist-environment"]
        var value: [UInt8]?
        if text.contains("=") { value = Array((text.split(separator: "=", maxSplits: 1).last ?? "").utf8) }
        if takes.contains(name), value == nil, index < arguments.count {
          value = arguments[index]
          index += 1
        }
        if name == "--command" || name == "--session-command", let value { command = [value] }
        continue
      }
      if argument.count >= 2, argument[0] == UInt8(ascii: "-") {
        var position = 1
        while position < argument.count {
          let flag = argument[position]
          if withValue.contains(flag) {
            var value = Array(argument[(position + 1)...])
            if value.isEmpty, index < arguments.count {
              value = arguments[index]
              index += 1
            }
            if flag == UInt8(ascii: "c") || flag == UInt8(ascii: "C") { command = [value] }
            break
          }
          position += 1
        }
        continue
      }
      if target == nil { target = text } else { command.append(argument) }
    }
    return (command, target ?? "root", command.isEmpty)
  }

  /// The arguments joined by spaces, as one unambiguous line: an argument that is empty or holds a space is
  /// single-quoted; a `'`, a backtick, a backslash and every byte outside printable ASCII become `\xNN` (so `'`
  /// only ever opens or closes a quoted argument, and `\x` only ever starts an escape). Past `maximumLength`
  /// characters the line is cut before a whole byte's escape and never inside a UTF-8 character, and ends with
  /// "... (cut: N more bytes)", N counting the command's bytes left out.
  package static func escape(_ arguments: [[UInt8]]) -> String {
    // Each piece: its text, how many of the command's bytes it shows, and whether a cut may come before it.
    var pieces: [(text: String, bytes: Int, cuttable: Bool)] = []
    for (number, argument) in arguments.enumerated() {
      if number > 0 { pieces.append((" ", 1, true)) }
      let quoted = argument.isEmpty || argument.contains(UInt8(ascii: " "))
      if quoted { pieces.append(("'", 0, true)) }
      for byte in argument {
        let plain = byte >= 0x20 && byte < 0x7F && byte != UInt8(ascii: "`") && byte != UInt8(ascii: "\\")
          && byte != UInt8(ascii: "'")
        pieces.append((plain ? String(UnicodeScalar(byte)) : "\\x" + hex(byte), 1, byte & 0xC0 != 0x80))
      }
      if quoted { pieces.append(("'", 0, false)) }
    }
    let total = pieces.reduce(0) { $0 + $1.text.utf8.count }
    if total <= maximumLength { return pieces.map { $0.text }.joined() }
    var kept = 0
    var length = 0
    for (index, piece) in pieces.enumerated() {
      if length + piece.text.utf8.count > maximumLength { break }
      length += piece.text.utf8.count
      if index + 1 == pieces.count || pieces[index + 1].cuttable { kept = index + 1 }
    }
    let shown = pieces[..<kept]
    let left = pieces.reduce(0) { $0 + $1.bytes } - shown.reduce(0) { $0 + $1.bytes }
    return shown.map { $0.text }.joined() + "... (cut: \(left) more bytes)"
  }

  private static func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789abcdef".utf8)
    return String(decoding: [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]], as: UTF8.self)
  }
}
