/// The state of a join: one result that depends on how several operands complete, each once. An
/// operand's outcome either **decides the result alone** (a cancellation under
/// ``Rule/anyCancelled``, a completion without cancellation under ``Rule/allCancelled``) or is
/// **counted**, and the last counted completion decides the other way. When the result is decided,
/// the handles of the operands' handlers still waiting (their *watches*) are handed back to be
/// removed, so a long-lived operand does not collect the handlers of results decided by others.
///
/// A plain value with no lock and no user code; `CancelJoin` hosts it beside a `CoreLock`.
/// Why one lock counts the operands: docs/architecture.md, "Who owns synchronization".
package struct CancelJoinStateMachine: Sendable {
  /// Which outcome decides the result alone.
  package enum Rule: Sendable {
    /// Any operand cancelled cancels the result; once every operand completed without
    /// cancellation, the result completes without cancellation (`a || b`).
    case anyCancelled
    /// Any operand completed without cancellation completes the result without cancellation;
    /// once every operand is cancelled, the result is cancelled (`a && b`).
    case allCancelled

    /// The operand outcome (`cancelled`) that decides the result alone.
    var decisiveOutcome: Bool { self == .anyCancelled }
  }

  /// How the result ends, decided exactly once.
  package struct Decision: Sendable, Equatable {
    /// Whether the result is cancelled (with the reason of ``operand``) or closed.
    package let cancelled: Bool
    /// The operand whose completion decided: the one that decided alone, or the last one counted.
    package let operand: Int

    /// A decision: cancelled with `operand`'s reason, or closed.
    package init(cancelled: Bool, operand: Int) {
      self.cancelled = cancelled
      self.operand = operand
    }
  }

  /// One operand's handler, as far as the join knows.
  package enum Watch: Sendable {
    /// Registered, but its handle has not been adopted yet.
    case registering
    /// Waiting on the operand; the handle removes it.
    case waiting(CancelRegistration)
    /// Ran, or was handed back for removal: nothing of the join waits on this operand.
    case done
  }

  private let rule: Rule
  /// Operands whose completion has not been counted yet.
  private var uncounted: Int
  /// The first two operands' watches inline (the common binary case allocates nothing).
  private var watch0 = Watch.registering
  private var watch1 = Watch.registering
  private var moreWatches: ContiguousArray<Watch>
  /// Set once; stays set.
  private(set) var isDecided = false
  /// The decision, until the delivering thread takes it.
  private var pendingDecision: Decision?

  /// A join of `operandCount` operands (at least one), none completed yet.
  package init(rule: Rule, operandCount: Int) {
    precondition(operandCount >= 1, "a join needs at least one operand")
    self.rule = rule
    uncounted = operandCount
    moreWatches = operandCount > 2 ? ContiguousArray(repeating: .registering, count: operandCount - 2) : []
  }

  /// Keeps the handle of the handler registered on `operand`.
  ///
  /// - Returns: the handle to remove now (outside the lock) if the join is already decided and the
  ///   handler has not run; `nil` if it was kept, or if the handler already ran.
  package mutating func adopt(_ registration: CancelRegistration, operand: Int) -> CancelRegistration? {
    guard case .registering = self[watch: operand] else { return nil }  // it already ran
    if isDecided {
      self[watch: operand] = .done
      return registration
    }
    self[watch: operand] = .waiting(registration)
    return nil
  }

  /// Counts `operand`'s completion (its handler ran, so its watch is done).
  ///
  /// - Returns: `nil` if the result is not decided by it (or was decided before); otherwise the
  ///   watches still waiting on other operands, which the caller removes outside the lock, and
  ///   the caller then delivers the decision (``takeDecision()``).
  package mutating func operandCompleted(_ operand: Int, cancelled: Bool) -> Leftovers? {
    self[watch: operand] = .done
    guard !isDecided else { return nil }
    if cancelled == rule.decisiveOutcome {
      return decide(Decision(cancelled: cancelled, operand: operand))
    }
    uncounted -= 1
    guard uncounted == 0 else { return nil }
    return decide(Decision(cancelled: cancelled, operand: operand))
  }

  /// The decision, once, for the thread that delivers it; `nil` afterwards and before.
  package mutating func takeDecision() -> Decision? {
    defer { pendingDecision = nil }
    return pendingDecision
  }

  private mutating func decide(_ decision: Decision) -> Leftovers {
    isDecided = true
    pendingDecision = decision
    var leftovers = Leftovers()
    leftovers.take(&watch0)
    leftovers.take(&watch1)
    for index in moreWatches.indices { leftovers.take(&moreWatches[index]) }
    return leftovers
  }

  private subscript(watch operand: Int) -> Watch {
    get {
      switch operand {
      case 0: return watch0
      case 1: return watch1
      default: return moreWatches[operand - 2]
      }
    }
    set {
      switch operand {
      case 0: watch0 = newValue
      case 1: watch1 = newValue
      default: moreWatches[operand - 2] = newValue
      }
    }
  }

  /// Handlers left waiting on operands when the result was decided; remove them outside the lock.
  package struct Leftovers: Sendable {
    private var first: CancelRegistration?
    private var others: [CancelRegistration] = []

    /// The number of handles.
    package var count: Int { (first == nil ? 0 : 1) + others.count }

    /// Takes a waiting handle. A watch still `.registering` stays so: its handle, adopted later,
    /// is then handed back for removal.
    fileprivate mutating func take(_ watch: inout Watch) {
      guard case .waiting(let registration) = watch else { return }
      watch = .done
      if first == nil { first = registration } else { others.append(registration) }
    }

    /// Removes every handler. Call it without holding any lock.
    package func unregisterAll() {
      first?.unregister()
      for registration in others { registration.unregister() }
    }
  }
}
