import LocalAuthCore

/// A prompter that replays scripted answers and records what was shown, for tests.
public final class ScriptedPrompter: AuthPrompter, @unchecked Sendable {
  private let lock = Mutex()
  private var answers: [String]
  /// Every line shown, prefixed "info: ", "error: " or "prompt: ".
  public private(set) var transcript: [String] = []

  /// Creates a prompter that answers secret prompts with `answers`, in order.
  public init(answers: [String] = []) { self.answers = answers }

  /// Adds answers.
  public func enqueue(_ more: String...) { lock.withLock { answers += more } }

  public func info(_ text: String) throws(LocalAuthError) { lock.withLock { transcript.append("info: " + text) } }
  public func error(_ text: String) throws(LocalAuthError) { lock.withLock { transcript.append("error: " + text) } }
  public func secret(_ prompt: String) throws(LocalAuthError) -> SecretBytes {
    try lock.withLock { () throws(LocalAuthError) in
      transcript.append("prompt: " + prompt)
      guard !answers.isEmpty else { throw .prompt(.conversationFailed) }
      return SecretBytes(answers.removeFirst())
    }
  }

  /// The parallel prompt handed out when the evaluator asks for one; nil: none (the default prompter's answer).
  public var parallelEntry: ScriptedEntry?
  /// How many times a parallel prompt was asked for.
  public private(set) var parallelRequests = 0

  public func openParallelEntry(_ prompt: String) throws(LocalAuthError) -> ParallelEntry? {
    lock.withLock { parallelRequests += 1 }
    guard let parallelEntry else { return nil }
    parallelEntry.show(prompt)
    return parallelEntry
  }

  /// The prompts asked so far.
  public var prompts: [String] { lock.withLock { transcript.filter { $0.hasPrefix("prompt: ") } } }
}
