/// Identifies one registration in a `HandlerTable`: the slot and a check against slot reuse.
@usableFromInline
package struct HandlerKey: Sendable, Hashable {
  /// The slot's index in the table.
  let index: UInt32
  /// The low 32 bits of the registration's sequence number. A stale key can only match a reused
  /// slot after 2³² further registrations on the same source.
  let tag: UInt32
}

/// The handlers waiting on one active source: a slot array with a free list.
///
/// - Register and unregister are O(1) and allocate nothing once the array has grown: a freed slot
///   is reused, and when the last handler leaves the array keeps its (small) capacity.
/// - Handlers leave in last-registered-first order (`drain()`), ordered by a sequence number.
/// - When the table empties, a large array is released, so a long-lived source that once held a
///   million registrations goes back to holding nothing.
///
/// It is a plain value: no locks, no user code. `CancelStorage` calls it under its lock.
struct HandlerTable: Sendable {
  struct Slot: Sendable {
    /// The registration order of the handler in this slot; 0 when the slot is free.
    var sequence: UInt64
    var content: Content
  }

  enum Content: Sendable {
    case handler(CancelHandler)
    /// A free slot; `next` is the next free slot's index, or -1.
    case free(next: Int32)
  }

  /// Above this capacity an emptied table gives its memory back.
  static let retainedCapacity = 32

  private var slots: ContiguousArray<Slot> = []
  private var freeHead: Int32 = -1
  private var nextSequence: UInt64 = 1
  /// True while no slot was reused, so that index order is registration order and draining needs
  /// no sort.
  private var isInRegistrationOrder = true
  /// The number of handlers in the table.
  private(set) var count = 0

  /// Adds `handler` and returns the key that removes it.
  mutating func insert(_ handler: CancelHandler) -> HandlerKey {
    let sequence = nextSequence
    nextSequence &+= 1
    count += 1
    let slot = Slot(sequence: sequence, content: .handler(handler))
    let index: Int
    if freeHead >= 0 {
      index = Int(freeHead)
      guard case .free(let next) = slots[index].content else { preconditionFailure("corrupt free list") }
      freeHead = next
      isInRegistrationOrder = false
      slots[index] = slot
    } else {
      index = slots.count
      slots.append(slot)
    }
    return HandlerKey(index: UInt32(truncatingIfNeeded: index), tag: UInt32(truncatingIfNeeded: sequence))
  }

  /// Removes the handler registered under `key` and returns it (so the caller can release it
  /// outside any lock), or returns `nil` if that registration is no longer in the table.
  mutating func remove(_ key: HandlerKey) -> CancelHandler? {
    let index = Int(key.index)
    guard index < slots.count, slots[index].sequence != 0,
      UInt32(truncatingIfNeeded: slots[index].sequence) == key.tag,
      case .handler(let handler) = slots[index].content
    else { return nil }
    count -= 1
    if count == 0 {
      releaseSlots()
    } else if index == slots.count - 1 {
      // Removing the newest slot keeps index order intact and needs no free-list entry.
      slots.removeLast()
    } else {
      slots[index] = Slot(sequence: 0, content: .free(next: freeHead))
      freeHead = Int32(index)
    }
    return handler
  }

  /// Empties the table and returns its handlers, to be run newest first.
  mutating func drain() -> DrainedHandlers {
    let drained = DrainedHandlers(slots: slots, inRegistrationOrder: isInRegistrationOrder)
    slots = []
    freeHead = -1
    count = 0
    isInRegistrationOrder = true
    return drained
  }

  private mutating func releaseSlots() {
    if slots.capacity > Self.retainedCapacity {
      slots = []
    } else {
      slots.removeAll(keepingCapacity: true)
    }
    freeHead = -1
    isInRegistrationOrder = true
  }
}

/// The handlers of a source that just ended, handed out newest first.
///
/// Each handler is released from here as it is handed out, so a closure lives no longer than its
/// own run.
struct DrainedHandlers: Sendable {
  private var slots: ContiguousArray<HandlerTable.Slot>
  /// Slot indices in registration order when slots were reused; empty when index order is already
  /// registration order.
  private let order: [Int32]
  private var cursor: Int

  /// No handlers.
  static var none: DrainedHandlers { DrainedHandlers(slots: [], inRegistrationOrder: true) }

  init(slots: ContiguousArray<HandlerTable.Slot>, inRegistrationOrder: Bool) {
    self.slots = slots
    if inRegistrationOrder {
      order = []
      cursor = slots.count
    } else {
      var live: [Int32] = []
      live.reserveCapacity(slots.count)
      for index in slots.indices where slots[index].sequence != 0 { live.append(Int32(index)) }
      live.sort { slots[Int($0)].sequence < slots[Int($1)].sequence }
      order = live
      cursor = live.count
    }
  }

  /// Whether handlers may remain (conservative: a `true` may be followed by a `nil` from `next()`).
  var mayHaveMore: Bool { cursor > 0 }

  /// The next handler to run, newest registration first.
  mutating func next() -> CancelHandler? {
    while cursor > 0 {
      cursor -= 1
      let index = order.isEmpty ? cursor : Int(order[cursor])
      if case .handler(let handler) = slots[index].content {
        slots[index].content = .free(next: -1)
        return handler
      }
    }
    return nil
  }
}
