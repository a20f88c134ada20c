import Synchronization

/// The baseline every core benchmark is compared with: the simplest correct token, a
/// `Mutex`-guarded flag with an array of handlers (each wrapped in a struct, which spares the
/// array an extra allocation per stored closure, so the baseline is not a straw man).
final class MutexFlagToken: Sendable {
  struct Handler {
    let body: @Sendable () -> Void
  }

  struct State {
    var cancelled = false
    var handlers: [Handler?] = []
    var live = 0
  }

  let state = Mutex(State())

  var isCancelled: Bool { state.withLock { $0.cancelled } }

  /// Registers `body`; runs it at once if already cancelled. Returns the slot, or -1.
  func register(_ body: @escaping @Sendable () -> Void) -> Int {
    let slot: Int? = state.withLock { state in
      guard !state.cancelled else { return nil }
      state.handlers.append(Handler(body: body))
      state.live += 1
      return state.handlers.count - 1
    }
    guard let slot else {
      body()
      return -1
    }
    return slot
  }

  func unregister(_ slot: Int) {
    state.withLock { state in
      guard !state.cancelled, slot >= 0, slot < state.handlers.count, state.handlers[slot] != nil else { return }
      state.handlers[slot] = nil
      state.live -= 1
      if state.live == 0 { state.handlers.removeAll(keepingCapacity: true) }
    }
  }

  func cancel() {
    let handlers: [Handler?] = state.withLock { state in
      guard !state.cancelled else { return [] }
      state.cancelled = true
      defer { state.handlers = [] }
      return state.handlers
    }
    for handler in handlers.reversed() { handler?.body() }
  }
}

/// A plain atomic flag: the floor for a lock-free `isCancelled`.
final class AtomicFlag: Sendable {
  let flag = Atomic<Bool>(false)
  var isCancelled: Bool { flag.load(ordering: .acquiring) }
}
