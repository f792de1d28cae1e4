/// The module's side of localauth-helper: starts it, relays its lines and prompts to the application's
/// conversation, and returns how it ended.
package enum HelperClient {
  /// How long the module waits for the helper's next message: the longest sensor timeout (600 s) and a margin
  /// for the hash and the lock.
  package static let messageBound = 660

  /// Runs one authentication of `hello.user` through the helper at `path`, talking to the user with `prompter`.
  ///
  /// A failing conversation on a line ends the call with that error (the helper is then killed, as Ctrl-C would
  /// end an in-process evaluation); at a secret prompt the helper is told, and decides.
  package static func authenticate(
    _ hello: HelperHello, helper path: String, prompter: AuthPrompter
  ) throws(LocalAuthError) -> HelperResult {
    let process: HelperProcess
    do { process = try HelperProcess.start(path) } catch { throw .helper(error) }
    defer { process.finish() }
    let channel = process.channel
    try io { () throws(HelperProtocolError) in try channel.send(.hello(hello)) }
    guard case .result(let result) = try relayDialog(on: channel, prompter: prompter) else {
      throw .helper(.broken(.malformed("a message only an app's session sends")))
    }
    return result
  }

  /// Relays the helper's lines and prompts to `prompter` (a typed answer goes back) until a message that is not
  /// part of the dialog arrives, and returns it: the module's `result`, or an app's `item` or `reply`.
  ///
  /// A failing conversation on a line ends the call with that error; at a secret prompt the helper is told.
  package static func relayDialog(
    on channel: HelperChannel, prompter: AuthPrompter, bound: Int = messageBound
  ) throws(LocalAuthError) -> HelperMessage {
    while true {
      let message = try io { () throws(HelperProtocolError) in try channel.receive(within: bound) }
      switch message {
      case .info(let text): try prompter.info(text)
      case .error(let text): try prompter.error(text)
      case .request(let text): try prompter.request(text)
      case .secret(let text):
        let reply: HelperMessage
        do {
          let answer = try prompter.secret(text)
          reply = .answer(answer.bytes)
          answer.wipe()
        } catch {
          let again = if case .prompt(.conversationAgain) = error { true } else { false }
          reply = .cancel(again: again)
        }
        try io { () throws(HelperProtocolError) in try channel.send(reply) }
      case .result, .item, .reply: return message
      case .hello, .answer, .cancel, .appHello, .call:
        throw .helper(.broken(.malformed("a message only the caller sends")))
      }
    }
  }

  static func io<T>(_ body: () throws(HelperProtocolError) -> T) throws(LocalAuthError) -> T {
    do { return try body() } catch { throw .helper(.broken(error)) }
  }
}
