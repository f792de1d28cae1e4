// la-app: app code as the seeds and Apple's samples write it, one scenario per run (`la-app SCENARIO ARGS…`).
// Every line it prints that a test reads starts with a keyword: "can", "evaluate", "status", "data", "state", and for
// rights "right", "public", "signature", "verify".
import Foundation
import LocalAuthentication
import Security

let arguments = Array(CommandLine.arguments.dropFirst())
guard let scenario = arguments.first else {
  print("usage: la-app SCENARIO [ARGUMENTS]")
  exit(2)
}
let rest = Array(arguments.dropFirst())

func policy(_ name: String) -> LAPolicy {
  name == "biometrics" ? .deviceOwnerAuthenticationWithBiometrics : .deviceOwnerAuthentication
}

/// Set when an evaluation or a keychain call failed: la-app then exits 1 (the benchmark counts only successes).
nonisolated(unsafe) var failed = false

/// Prints how an evaluation ended: "evaluate success" or "evaluate error CODE".
func report(_ result: Result<Bool, any Error>) {
  switch result {
  case .success: print("evaluate success")
  case .failure(let error):
    failed = true
    print("evaluate error \((error as NSError).code)")
  }
}

/// Prints a keychain call's status.
func report(_ status: OSStatus) {
  if status != errSecSuccess { failed = true }
  print("status \(status)")
}

func evaluate(_ context: LAContext, _ policyName: String, _ reason: String) async -> Result<Bool, any Error> {
  do { return .success(try await context.evaluatePolicy(policy(policyName), localizedReason: reason)) } catch {
    return .failure(error)
  }
}

/// A keychain query for service and account (and an access group when given).
func query(_ service: String, _ account: String, group: String? = nil) -> [String: Any] {
  var query: [String: Any] = [
    kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service,
    kSecAttrAccount as String: account,
  ]
  if let group { query[kSecAttrAccessGroup as String] = group }
  return query
}

func read(_ service: String, _ account: String, context: LAContext? = nil, group: String? = nil) {
  var search = query(service, account, group: group)
  search[kSecReturnData as String] = kCFBooleanTrue
  search[kSecUseOperationPrompt as String] = "read your \(service) password"
  if let context { search[kSecUseAuthenticationContext as String] = context }
  var result: AnyObject?
  report(SecItemCopyMatching(search as CFDictionary, &result))
  if let data = result as? Data { print("data \(String(decoding: data, as: UTF8.self))") }
}

/// An app's own dialog (a GUI app): shows lines on standard output, answers the passcode from LA_APP_PASSCODE.
final class ScriptedDialog: LAPrompter, @unchecked Sendable {
  func show(_ message: String) { print("dialog show \(message)") }
  func showBiometricRequest(_ message: String) { print("dialog request \(message)") }
  func passcode(prompt: String) -> String? {
    print("dialog passcode \(prompt)")
    return ProcessInfo.processInfo.environment["LA_APP_PASSCODE"]
  }
}

/// A requirement by name: "default", "biometry", "biometryCurrentSet" or "fallback" (biometry, else the passcode).
func requirement(_ name: String?) -> LAAuthenticationRequirement {
  switch name {
  case "biometry": .biometry
  case "biometryCurrentSet": .biometryCurrentSet
  case "fallback": .biometry(fallback: .devicePasscode)
  default: .default
  }
}

func hex(_ data: Data) -> String { data.map { String(format: "%02x", $0) }.joined() }

/// Runs a right's step, printing "right error CODE" when it throws; nil then.
func step<T>(_ body: () async throws -> T) async -> T? {
  do { return try await body() } catch {
    print("right error \((error as NSError).code)")
    return nil
  }
}

switch scenario {
case "right-authorize":
  // right-authorize [REQUIREMENT]: an LARight authorized once (the finger, or the passcode for the default)
  let right = LARight(requirement: requirement(rest.first))
  if await step({ try await right.authorize(localizedReason: "open the vault") }) != nil {
    print("right authorized state=\(right.state.rawValue)")
  }
  await right.deauthorize()
  print("right state=\(right.state.rawValue)")
case "rightstore-save":
  // rightstore-save ID SECRET [REQUIREMENT]: LARightStore.saveRight with a secret; prints the public key
  if let saved = await step({
    try await LARightStore.shared.saveRight(LARight(requirement: requirement(rest.count > 2 ? rest[2] : nil)), identifier: rest[0], secret: Data(rest[1].utf8))
  }), let key = await step({ try await saved.key.publicKey.bytes }) {
    print("right saved")
    print("public \(hex(key))")
  }
case "rightstore-load":
  // rightstore-load ID [unauthorized]: fetches the right, authorizes it (unless told not to), loads the secret
  if let right = await step({ try await LARightStore.shared.right(forIdentifier: rest[0]) }) {
    print("right fetched")
    if rest.count < 2 || rest[1] != "unauthorized" {
      if await step({ try await right.authorize(localizedReason: "read your \(rest[0]) secret") }) == nil { break }
      print("right authorized")
    }
    if let data = await step({ try await right.secret.rawData }) { print("data \(String(decoding: data, as: UTF8.self))") }
  }
case "rightstore-sign":
  // rightstore-sign ID MESSAGE: fetches and authorizes the right, signs MESSAGE, verifies with the public key
  if let right = await step({ try await LARightStore.shared.right(forIdentifier: rest[0]) }),
    await step({ try await right.authorize(localizedReason: "sign in as \(rest[0])") }) != nil,
    let signature = await step({ try await right.key.sign(Data(rest[1].utf8), algorithm: .ecdsaSignatureMessageX962SHA256) }),
    let key = await step({ try await right.key.publicKey.bytes })
  {
    print("signature \(hex(signature))")
    print("public \(hex(key))")
    if await step({ try await right.key.publicKey.verify(Data(rest[1].utf8), signature: signature, algorithm: .ecdsaSignatureMessageX962SHA256) }) != nil {
      print("verify ok")
    }
  }
case "rightstore-remove":
  // rightstore-remove ID
  if await step({ try await LARightStore.shared.removeRight(forIdentifier: rest[0]) }) != nil { print("right removed") }
case "can":
  let context = LAContext()
  var error: NSError?
  let can = context.canEvaluatePolicy(policy(rest.first ?? "owner"), error: &error)
  print("can \(can) \(error?.code ?? 0) biometryType=\(context.biometryType.rawValue)")
  failed = !can
case "evaluate":
  // evaluate POLICY REASON [REUSE-SECONDS [nointeraction]]
  let context = LAContext()
  if rest.count > 2, let reuse = TimeInterval(rest[2]) { context.touchIDAuthenticationAllowableReuseDuration = reuse }
  if rest.count > 3, rest[3] == "nointeraction" { context.interactionNotAllowed = true }
  report(await evaluate(context, rest[0], rest[1]))
  if let state = context.evaluatedPolicyDomainState { print("state \(state.map { String(format: "%02x", $0) }.joined())") }
case "twice":
  // twice REUSE-SECONDS: two contexts one after the other, each allowing a reuse of REUSE-SECONDS
  for _ in 0..<2 {
    let context = LAContext()
    context.touchIDAuthenticationAllowableReuseDuration = TimeInterval(rest[0]) ?? 0
    report(await evaluate(context, "biometrics", "open the vault"))
  }
case "dialog":
  // dialog POLICY REASON: no terminal, the app's own prompter
  let context = LAContext()
  context.prompter = ScriptedDialog()
  report(await evaluate(context, rest[0], rest[1]))
case "invalidate":
  // invalidate: an evaluation that waits for the finger, ended by invalidate() after a second
  let context = LAContext()
  let running = Task { await evaluate(context, "biometrics", "wait to be invalidated") }
  try? await Task.sleep(nanoseconds: 1_000_000_000)
  context.invalidate()
  report(await running.value)
  report(await evaluate(context, "biometrics", "after invalidate"))
case "add":
  // add SERVICE ACCOUNT DATA [none|afterFirstUnlock|userPresence|biometryAny|biometryCurrentSet] [GROUP]
  // (none: no access control, Apple's default class WhenUnlocked; afterFirstUnlock: no access control, that class)
  var attributes = query(rest[0], rest[1], group: rest.count > 4 ? rest[4] : nil)
  attributes[kSecValueData as String] = Data(rest[2].utf8)
  if rest.count > 3 && rest[3] == "afterFirstUnlock" {
    attributes[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlock
  }
  let flags: SecAccessControlCreateFlags? =
    switch rest.count > 3 ? rest[3] : "none" {
    case "userPresence": .userPresence
    case "biometryAny": .biometryAny
    case "biometryCurrentSet": .biometryCurrentSet
    default: nil
    }
  if let flags {
    attributes[kSecAttrAccessControl as String] = SecAccessControlCreateWithFlags(
      nil, kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly, flags, nil)
  }
  report(SecItemAdd(attributes as CFDictionary, nil))
case "read":
  // read SERVICE ACCOUNT [GROUP]
  read(rest[0], rest[1], group: rest.count > 2 ? rest[2] : nil)
case "context-read":
  // context-read SERVICE ACCOUNT: one evaluation, then two reads with that context (no second prompt)
  let context = LAContext()
  report(await evaluate(context, "biometrics", "unlock your \(rest[0]) password"))
  read(rest[0], rest[1], context: context)
  read(rest[0], rest[1], context: context)
case "reuse-read":
  // reuse-read SERVICE ACCOUNT SECONDS: an evaluation that may reuse a match of the last SECONDS and may not ask
  // (interactionNotAllowed), then a read with that context: an item released with no prompt at all (issue 37, R)
  let context = LAContext()
  context.touchIDAuthenticationAllowableReuseDuration = TimeInterval(rest[2]) ?? 0
  context.interactionNotAllowed = true
  report(await evaluate(context, "biometrics", "read your \(rest[0]) password"))
  read(rest[0], rest[1], context: context)
case "dialog-read":
  // dialog-read SERVICE ACCOUNT: a read whose prompt goes to the app's own dialog (no terminal)
  let context = LAContext()
  context.prompter = ScriptedDialog()
  read(rest[0], rest[1], context: context)
case "update":
  let changes: [String: Any] = [kSecValueData as String: Data(rest[2].utf8)]
  report(SecItemUpdate(query(rest[0], rest[1]) as CFDictionary, changes as CFDictionary))
case "delete":
  report(SecItemDelete(query(rest[0], rest[1]) as CFDictionary))
case "domain-state":
  let hash = LAContext().domainState.biometry.stateHash
  print("state \(hash.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "none")")
case "item-model":
  // item-model: issue 28's calls in one run (ItemModel.swift)
  itemModelScenario()
case "seed":
  // The keychain seed (../shared/seeds/001), as Tests/SecurityTests/SeedKeychainSnippetTests.swift runs it as root.
  print("status \(seedAdd() ?? -1)")
  let (status, password) = seedRead()
  print("status \(status)")
  if let password { print("data \(password)") }
default:
  print("unknown scenario \(scenario)")
  exit(2)
}
exit(failed ? 1 : 0)
