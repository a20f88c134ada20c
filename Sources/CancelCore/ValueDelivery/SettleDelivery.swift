/// An object whose settled callbacks can be delivered now or a little later on the same thread.
///
/// For hosts whose delivery is not specialized for a client's types (a `SettleCell`, a join, a
/// derived token); a host generic over a client's types hands `SettleDelivery` a `ReadyDelivery`
/// instead.
package protocol DeferredDelivery: AnyObject {
  /// Delivers the waiting callbacks now.
  func deliverCallbacks()
}

/// Delivers settled callbacks without growing the stack.
///
/// Settling a promise inside a callback of another settles a chain; delivering each link
/// recursively would overflow the stack on a chain of 100,000 stages. Instead, each thread keeps
/// a queue: the first delivery on a thread runs at once, and any delivery started from inside it
/// is queued and run, in order, when the current callback returns to the loop. Everything still
/// happens synchronously on the settling thread before the outermost `deliver` returns.
@usableFromInline
package enum SettleDelivery {
  /// Delivers `host`'s callbacks now, or queues them behind the delivery already running on this
  /// thread.
  package static func deliver(_ host: any DeferredDelivery) {
    deliver(.host(host))
  }

  /// Delivers `ready` now, or queues it behind the delivery already running on this thread.
  ///
  /// For hosts generic over a client's types (a promise) and hosts whose stages hand their
  /// delivery back (promises, futures): `run` is made by the host's inlinable code
  /// (`SettleHost.readyDelivery(of:)`), so where that code is specialized for the client's types,
  /// `run` runs the host's specialized delivery and, capturing nothing, costs no allocation and no
  /// field in the host. (Made in unspecialized code, it captures the type's metadata: one small
  /// allocation.)
  @usableFromInline
  package static func deliver(_ ready: ReadyDelivery) {
    deliver(.call(ready))
  }

  /// Runs now every delivery queued on this thread, if this thread is inside a delivery (a
  /// callback of ours is running); does nothing otherwise.
  ///
  /// For blocking waits: a promise settled inside a handler has its callbacks queued until the
  /// handler returns, so a handler that blocks waiting for a stage after it would wait forever.
  /// Running the queue first lets that stage settle on this thread before the wait blocks. The
  /// queued deliveries run in their order; they only run before the rest of the current
  /// handler's batch, which is waiting anyway.
  ///
  /// A cancel made inside a cancel handler is queued too (see `CancelStorage.finish`), and the
  /// rejections it makes settle promises: both queues are run until neither has anything left.
  package static func runQueuedDeliveries() {
    while true {
      let ranCancels = CancelStorage.runQueuedCancels()
      var ranDeliveries = false
      ThreadDeliveryQueue.withCurrent { queue in
        if queue.isDelivering && queue.next != nil {
          queue.drain()
          ranDeliveries = true
        }
      }
      if !ranCancels && !ranDeliveries { return }
    }
  }

  static func deliver(_ delivery: PendingDelivery) {
    ThreadDeliveryQueue.withCurrent { queue in
      if queue.isDelivering {
        queue.enqueue(delivery)
        return
      }
      queue.isDelivering = true
      delivery.run(on: queue)
      // Most deliveries queue nothing: the common case skips the drain's bookkeeping.
      if queue.next != nil { queue.drain() }
      queue.isDelivering = false
    }
  }
}

/// A host whose callbacks are ready to be delivered, with the function that delivers them.
///
/// `run(host, queue)` delivers on the thread that owns `queue` and may return the next ready
/// delivery instead of queueing it: the caller delivers that one next, before anything queued. A
/// `run` may hand back only a delivery that became ready while `queue.isIdle` (nothing queued),
/// and only the first such; anything queued later became ready later, so the queue's order is
/// kept. A chain's next stage then skips the queue (no thread-local lookup, no queue traffic).
@usableFromInline
package struct ReadyDelivery: Sendable {
  @usableFromInline let host: AnyObject & Sendable
  @usableFromInline let run: @Sendable (AnyObject, ThreadDeliveryQueue) -> ReadyDelivery?

  @inlinable
  package init(host: AnyObject & Sendable, run: @escaping @Sendable (AnyObject, ThreadDeliveryQueue) -> ReadyDelivery?)
  {
    self.host = host
    self.run = run
  }

  /// Delivers this and every delivery handed back after it.
  func deliverAll(on queue: ThreadDeliveryQueue) {
    var next = run(host, queue)
    // `take()` moves each one out: binding a copy would retain and release every stage.
    while let ready = next.take() { next = ready.run(ready.host, queue) }
  }
}

/// One deferred delivery: a host to ask, or a host with the function that delivers it.
enum PendingDelivery {
  case host(any DeferredDelivery)
  case call(ReadyDelivery)

  /// Delivers, and then every delivery a `ReadyDelivery` hands back, at once.
  func run(on queue: ThreadDeliveryQueue) {
    switch self {
    case .host(let host): host.deliverCallbacks()
    case .call(let ready): ready.deliverAll(on: queue)
    }
  }
}

/// One thread's queue of deferred deliveries. Thread-confined: only its own thread touches it.
///
/// The oldest queued delivery sits in `next`; `pending` holds the ones queued behind it. A chain
/// (each delivery queueing exactly one more, the common case) therefore never touches the array:
/// each host is released as soon as it has delivered, instead of piling up in an array that grows
/// to the chain's length.
@usableFromInline
package final class ThreadDeliveryQueue {
  var isDelivering = false
  /// The oldest queued delivery; `nil` only when nothing is queued.
  var next: PendingDelivery?
  /// Deliveries queued behind `next`, oldest first from `head`.
  var pending: [PendingDelivery] = []
  var head = 0

  /// Whether nothing is queued. (A delivery handed back to the loop waits outside the queue, so a
  /// host that keeps one must not hand back another: see `ReadyDelivery`.)
  @usableFromInline package var isIdle: Bool { next == nil }

  /// Queues `delivery` behind every delivery already queued.
  func enqueue(_ delivery: PendingDelivery) {
    if next == nil {
      next = delivery  // nothing queued (`pending` is empty whenever `next` is nil)
    } else {
      pending.append(delivery)
    }
  }

  /// Queues `ready` before every delivery already queued: a host that held it back to hand it back
  /// (it became ready before anything queued) gives it up before running code that may wait for
  /// it (see `SettleDelivery.runQueuedDeliveries()`), and the queue's order stays as if it had been
  /// handed back.
  @usableFromInline
  package func enqueueFirst(_ ready: ReadyDelivery) {
    guard let current = next.take() else {
      next = .call(ready)
      return
    }
    next = .call(ready)
    if head > 0 {
      head -= 1
      pending[head] = current
    } else {
      pending.insert(current, at: 0)
    }
  }

  /// Runs the queued deliveries in order, including any queued while running.
  func drain() {
    // `take()` moves each entry out: copying it and clearing the slot would retain and release it.
    while let delivery = next.take() {
      if head < pending.count {
        // Keep FIFO order: the oldest in `pending` moves up before `delivery` runs and queues more.
        next = pending[head]
        head += 1
        if head == pending.count {
          pending.removeAll(keepingCapacity: pending.capacity <= 64)
          head = 0
        } else if head >= 1024 && head * 2 >= pending.count {
          pending.removeFirst(head)  // keep memory flat on long chains
          head = 0
        }
      }
      delivery.run(on: self)
    }
  }

  /// Calls `body` with the calling thread's queue, created on first use and released when the
  /// thread exits. The thread-local slot keeps the queue alive, so `body` borrows it without a
  /// retain and release per delivery.
  static func withCurrent(_ body: (ThreadDeliveryQueue) -> Void) {
    threadDeliveryQueues.withCurrent(make: { ThreadDeliveryQueue() }, body)
  }
}

/// The thread-local slot holding each thread's `ThreadDeliveryQueue`.
private let threadDeliveryQueues = ThreadLocalObject<ThreadDeliveryQueue>()
