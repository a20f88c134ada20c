/// An object that hosts a settle-once value: a `SettleStateMachine` beside a `CoreLock`, called
/// only inside the lock, its actions performed after unlocking. Promises, guarantees, futures and
/// the core's `SettleCell` are hosts, and all of them deliver their callbacks through the one loop
/// below, ``deliverWaitingCallbacks(on:)``.
///
/// A host supplies two small pieces: how to take the next callbacks and the value under its lock
/// (it knows where it keeps the value), and how to run one callback with the value. Everything a
/// delivery must keep is the loop's: callbacks run outside the lock, once, in registration order,
/// batch after batch until none remain (callbacks observed meanwhile wait in the machine for the
/// next batch), and a stage that becomes ready while nothing is queued on the thread is handed
/// back to the thread's delivery instead of recursing.
///
/// Hosts generic over a client's types (a promise) call the loop from inlinable code, so that it is
/// specialized for the client's types where they are known, as their callbacks are.
@usableFromInline
package protocol SettleHost: AnyObject, Sendable {
  /// What waits for the value.
  associatedtype Callback
  /// What a callback receives.
  associatedtype Delivered

  /// Takes, under the host's lock, the next callbacks to deliver and the value they receive; `nil`
  /// once none remain (see `SettleStateMachine.takeNextCallbacks()`).
  func takeNextCallbacks() -> (SettleCallbacks<Callback>, Delivered)?

  /// Runs `callback` with `value`, outside any lock.
  ///
  /// - Parameter queue: the queue of the delivery running the callback, or `nil` outside one.
  /// - Returns: a stage that the callback settled and whose own callbacks wait, handed back (only
  ///   with a `queue` that is idle; see ``ReadyDelivery``), or `nil`.
  static func run(_ callback: consuming Callback, with value: consuming Delivered, on queue: ThreadDeliveryQueue?)
    -> ReadyDelivery?
}

extension SettleHost {
  /// Runs the waiting callbacks after unlocking, batch by batch, in registration order, in the
  /// delivery that owns `queue` (`nil`: the host is delivered as a `DeferredDelivery`, and hands
  /// nothing back).
  ///
  /// - Returns: the first stage that became ready while nothing was queued, for the delivery loop
  ///   to run next; every later one was queued.
  @inlinable
  package func deliverWaitingCallbacks(on queue: ThreadDeliveryQueue?) -> ReadyDelivery? {
    var handBack: ReadyDelivery?
    while let (callbacks, value) = takeNextCallbacks() {
      // Consumed: a callback may own its stage, and running it hands that reference over.
      switch consume callbacks {
      case .one(let callback):
        // The only callback also takes this batch's copy of the value.
        if let ready = Self.run(consume callback, with: consume value, on: queue) {
          Self.pass(ready, to: &handBack, on: queue)
        }
      case .many(var batch):
        while let callback = batch.popOldest() {
          // A callback may run user code that waits for the stage held to hand back: queue it
          // first instead (the order stays the same), where a wait can run it.
          if let held = handBack.take() { queue?.enqueueFirst(held) }
          if let ready = Self.run(callback, with: value, on: queue) { Self.pass(ready, to: &handBack, on: queue) }
        }
      }
    }
    return handBack
  }

  /// Keeps `ready` to hand back if it is the first and nothing is queued; delivers it (queued
  /// behind the delivery running on this thread) otherwise, as it became ready after the one kept.
  @inlinable
  static func pass(_ ready: consuming ReadyDelivery, to handBack: inout ReadyDelivery?, on queue: ThreadDeliveryQueue?)
  {
    if handBack == nil, let queue, queue.isIdle {
      handBack = ready
    } else {
      SettleDelivery.deliver(ready)
    }
  }

  /// This host's waiting callbacks as a delivery that keeps the reference given. In code
  /// specialized for the host's type, its function captures nothing.
  @inlinable
  package static func readyDelivery(of host: consuming Self) -> ReadyDelivery {
    ReadyDelivery(host: host) { host, queue in
      unsafeDowncast(host, to: Self.self).deliverWaitingCallbacks(on: queue)
    }
  }

  /// Runs the waiting callbacks now: the `DeferredDelivery` witness of a host that
  /// `SettleDelivery.deliver(_:)` delivers as an object (no stage of such a host is handed back).
  package func deliverCallbacks() {
    _ = deliverWaitingCallbacks(on: nil)
  }

  /// Hands the waiting callbacks to the thread's delivery, which runs them now or, inside another
  /// delivery, when it returns to its loop.
  @inlinable
  package func deliverSettled() {
    SettleDelivery.deliver(Self.readyDelivery(of: self))
  }

  /// What a host's `settle` does after its settle step (`SettleStateMachine.settle`, under its
  /// lock): delivers the waiting callbacks if `action` says so. Returns whether this settle
  /// settled the host.
  @inlinable
  package func finishSettle<Value, Callback>(_ action: SettleStateMachine<Value, Callback>.SettleAction) -> Bool {
    switch action {
    case .deliver:
      deliverSettled()
      return true
    case .settled: return true
    case .alreadySettled: return false
    }
  }

  /// The same from a stage's callback running in the delivery that owns `queue`: `true` if that
  /// delivery runs the callbacks next (they wait and nothing else is queued; the caller hands back
  /// ``readyDelivery(of:)``), else delivers them now (or queues them, or nothing waits) and
  /// returns `false`.
  @inlinable
  package func handsBackDelivery<Value, Callback>(
    after action: SettleStateMachine<Value, Callback>.SettleAction, on queue: ThreadDeliveryQueue?
  ) -> Bool {
    guard case .deliver = action else { return false }
    if let queue, queue.isIdle { return true }
    deliverSettled()
    return false
  }
}
