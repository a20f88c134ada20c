/// A source whose outcome joins the outcomes of other sources: the object behind `||`, `&&` and
/// "any of" / "all of" token combinators. It hosts a `CancelJoinStateMachine` beside a `CoreLock`:
/// each operand holds one completion handler that counts its outcome under the lock; the handler
/// that decides removes the other operands' handlers (after unlocking) and cancels ``result`` with
/// the deciding operand's reason, or closes it, on that operand's thread before its `cancel`/`close`
/// returns (inside a delivery running on this thread: when it returns to the delivery loop, as
/// `SettleDelivery` queues it, so nested joins complete in constant stack).
///
/// Nothing else can end ``result``: it has no owner. The join object lives as long as a handler
/// of it waits on an operand, so a result dropped while pending is freed once it is decided.
//
// Safety of `@unchecked Sendable`: `machine` is read and written only inside `lock.withLock`;
// every other stored property is immutable.
package final class CancelJoin: CoreLockHost, DeferredDelivery, @unchecked Sendable {
  // The storage of `lock`: it must stay the first stored property (see `CoreLockHost`).
  @exclusivity(unchecked) private var lockStorage = CoreLockStorage()
  /// The joined source. Observe it; never cancel or close it from outside.
  package let result = CancelStorage()
  private let operand0: CancelStorage
  private let operand1: CancelStorage?
  private let moreOperands: ContiguousArray<CancelStorage>
  @exclusivity(unchecked) private var machine: CancelJoinStateMachine

  private init(
    rule: CancelJoinStateMachine.Rule, _ operand0: CancelStorage, _ operand1: CancelStorage?,
    more: ContiguousArray<CancelStorage>
  ) {
    self.operand0 = operand0
    self.operand1 = operand1
    moreOperands = more
    machine = CancelJoinStateMachine(rule: rule, operandCount: (operand1 == nil ? 1 : 2) + more.count)
    precondition(hostsLock(at: &lockStorage), "the lock is not where CoreLockHost.lock looks")
  }

  /// Joins two sources and returns the joined result.
  ///
  /// If both operands have already ended, the result is decided before this returns (first
  /// `first`'s outcome is counted, then `second`'s).
  package static func join(
    _ rule: CancelJoinStateMachine.Rule, _ first: CancelStorage, _ second: CancelStorage
  ) -> CancelStorage {
    let join = CancelJoin(rule: rule, first, second, more: [])
    // Each handler captures only the join (the operand index is a constant of the closure), so
    // registering allocates nothing.
    let watch0 = first.register(.onComplete { cancelled in join.operandCompleted(0, cancelled: cancelled) })
    let watch1 = second.register(.onComplete { cancelled in join.operandCompleted(1, cancelled: cancelled) })
    join.adopt(watch0, watch1)
    return join.result
  }

  /// Joins any number of sources (at least one) and returns the joined result.
  package static func join(_ rule: CancelJoinStateMachine.Rule, _ operands: [CancelStorage]) -> CancelStorage {
    precondition(!operands.isEmpty, "a join needs at least one operand")
    if operands.count == 2 { return join(rule, operands[0], operands[1]) }
    let join = CancelJoin(
      rule: rule, operands[0], operands.count > 1 ? operands[1] : nil, more: ContiguousArray(operands.dropFirst(2)))
    for (index, operand) in operands.enumerated() {
      let watch = operand.register(.onComplete { cancelled in join.operandCompleted(index, cancelled: cancelled) })
      if watch.isActive, let stale = join.lock.withLock({ join.machine.adopt(watch, operand: index) }) {
        stale.unregister()
      }
    }
    return join.result
  }

  private func adopt(_ watch0: CancelRegistration, _ watch1: CancelRegistration) {
    guard watch0.isActive || watch1.isActive else { return }
    let stale: (CancelRegistration?, CancelRegistration?) = lock.withLock {
      (
        watch0.isActive ? machine.adopt(watch0, operand: 0) : nil,
        watch1.isActive ? machine.adopt(watch1, operand: 1) : nil
      )
    }
    stale.0?.unregister()
    stale.1?.unregister()
  }

  private func operandCompleted(_ operand: Int, cancelled: Bool) {
    guard let leftovers = lock.withLock({ machine.operandCompleted(operand, cancelled: cancelled) }) else { return }
    leftovers.unregisterAll()
    SettleDelivery.deliver(self)
  }

  /// Part of `DeferredDelivery`: applies the decision, once.
  package func deliverCallbacks() {
    guard let decision = lock.withLock({ machine.takeDecision() }) else { return }
    if decision.cancelled {
      let operand = self[operand: decision.operand]
      _ = result.cancel(reason: operand.reason ?? defaultCancellationReason, cause: .join(operand))
    } else {
      _ = result.close()
    }
  }

  private subscript(operand index: Int) -> CancelStorage {
    switch index {
    case 0: return operand0
    case 1: return operand1!
    default: return moreOperands[index - 2]
    }
  }
}
