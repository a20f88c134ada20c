/// Identifies one registration in a `HandlerTable`: the slot and a check against slot reuse.
@usableFromInline
package struct HandlerKey: Sendable, Hashable {
  /// 0 for the inline slot, `i + 1` for `overflow[i]`.
  let index: UInt32
  /// The low 32 bits of the registration's sequence number. A stale key can only match a reused
  /// slot after 2³² further registrations on the same source.
  let tag: UInt32
}

/// The handlers waiting on one active source.
///
/// - The first handler of an empty table lives inline, so the common single-handler source never
///   allocates an array. Further handlers go to an overflow array with a free list.
/// - Register and unregister are O(1) and allocate nothing once the array has grown: a freed slot
///   is reused, and when the last handler leaves, a small array keeps its capacity.
/// - Handlers leave newest first (`drain()`), ordered by a sequence number. The inline handler,
///   when present, is always the oldest: it is only used when the table is empty.
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
    /// A free slot; `next` is the next free overflow index, or -1.
    case free(next: Int32)
  }

  /// Above this capacity an emptied overflow array gives its memory back.
  static let retainedCapacity = 32

  private var inlineHandler: CancelHandler?
  private var inlineSequence: UInt64 = 0
  private var overflow: ContiguousArray<Slot> = []
  private var freeHead: Int32 = -1
  private var nextSequence: UInt64 = 1
  /// True while no overflow slot was reused, so that index order is registration order and
  /// draining needs no sort.
  private var isInRegistrationOrder = true
  /// The number of handlers in the table.
  private(set) var count = 0

  /// Adds `handler` and returns the key that removes it.
  mutating func insert(_ handler: CancelHandler) -> HandlerKey {
    let sequence = nextSequence
    nextSequence &+= 1
    let tag = UInt32(truncatingIfNeeded: sequence)
    defer { count += 1 }
    if count == 0 {
      inlineHandler = handler
      inlineSequence = sequence
      return HandlerKey(index: 0, tag: tag)
    }
    let slot = Slot(sequence: sequence, content: .handler(handler))
    let index: Int
    if freeHead >= 0 {
      index = Int(freeHead)
      guard case .free(let next) = overflow[index].content else { preconditionFailure("corrupt free list") }
      freeHead = next
      isInRegistrationOrder = false
      overflow[index] = slot
    } else {
      index = overflow.count
      overflow.append(slot)
    }
    return HandlerKey(index: UInt32(truncatingIfNeeded: index + 1), tag: tag)
  }

  /// Removes the handler registered under `key` and returns it (so the caller can release it
  /// outside any lock), or returns `nil` if that registration is no longer in the table.
  mutating func remove(_ key: HandlerKey) -> CancelHandler? {
    let removed: CancelHandler
    if key.index == 0 {
      guard inlineHandler != nil, UInt32(truncatingIfNeeded: inlineSequence) == key.tag,
        let handler = inlineHandler.take()
      else { return nil }
      removed = handler
    } else {
      let index = Int(key.index - 1)
      guard index < overflow.count, overflow[index].sequence != 0,
        UInt32(truncatingIfNeeded: overflow[index].sequence) == key.tag,
        case .handler(let handler) = overflow[index].content
      else { return nil }
      removed = handler
      if index == overflow.count - 1 {
        // Removing the newest slot keeps index order intact and needs no free-list entry.
        overflow.removeLast()
      } else {
        overflow[index] = Slot(sequence: 0, content: .free(next: freeHead))
        freeHead = Int32(index)
      }
    }
    count -= 1
    if count == 0 { resetOverflow() }
    return removed
  }

  /// Empties the table and returns its handlers, to be run newest first.
  mutating func drain() -> DrainedHandlers {
    let drained = DrainedHandlers(
      inline: inlineHandler.take(), overflow: overflow, inRegistrationOrder: isInRegistrationOrder)
    overflow = []
    freeHead = -1
    count = 0
    isInRegistrationOrder = true
    return drained
  }

  /// Called when the last handler left: every overflow slot is free.
  private mutating func resetOverflow() {
    if overflow.capacity > Self.retainedCapacity {
      overflow = []
    } else {
      // Free slots hold no handler, so popping them releases nothing; popping one by one avoids
      // `removeAll(keepingCapacity:)`'s generic and far slower path.
      while !overflow.isEmpty { overflow.removeLast() }
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
  /// The oldest handler, if the table held one inline; handed out last.
  private var inline: CancelHandler?
  /// Live handlers in registration order (free slots skipped), handed out from the end.
  private var overflow: ContiguousArray<HandlerTable.Slot>

  init(inline: CancelHandler?, overflow: ContiguousArray<HandlerTable.Slot>, inRegistrationOrder: Bool) {
    self.inline = inline
    self.overflow = overflow
    if !inRegistrationOrder {
      // Slots were reused: put the live ones back in registration order (rare; O(n log n) once).
      self.overflow.removeAll { $0.sequence == 0 }
      self.overflow.sort { $0.sequence < $1.sequence }
    }
  }

  /// Whether handlers may remain (conservative: a `true` may be followed by a `nil` from `next()`).
  var mayHaveMore: Bool { !overflow.isEmpty || inline != nil }

  /// The next handler to run, newest registration first.
  mutating func next() -> CancelHandler? {
    while let slot = overflow.popLast() {
      if case .handler(let handler) = slot.content { return handler }
    }
    return inline.take()
  }
}
