/// Identifies one entry of a `RegistrationTable`: its slot and a check against slot reuse.
@usableFromInline
package struct RegistrationKey: Sendable, Hashable {
  /// 0 for the inline slot, `i + 1` for `overflow[i]`.
  @usableFromInline let index: UInt32
  /// The low 32 bits of the entry's sequence number. A stale key can only match a reused slot
  /// after 2³² further registrations in the same table.
  @usableFromInline let tag: UInt32

  @inlinable init(index: UInt32, tag: UInt32) {
    self.index = index
    self.tag = tag
  }

  /// A key that matches nothing.
  @usableFromInline package static let none = RegistrationKey(index: .max, tag: 0)
}

/// Entries waiting for an event (cancel handlers, promise callbacks), in registration order.
/// Insert and remove are O(1); `drain()` hands everything out in registration order, from either
/// end (cancel handlers run newest first, promise callbacks oldest first). The first entry of an
/// empty table lives inline, and is always the oldest.
///
/// It is a plain value: no locks, no user code. Its owner calls it under its lock. Store closures
/// inside a small struct or enum rather than as bare function types: a bare function type stored
/// generically needs a reabstraction thunk, which allocates.
/// Why it is laid out so: docs/architecture.md, "Who owns synchronization" (waiting entries).
@usableFromInline
package struct RegistrationTable<Element> {
  @usableFromInline
  struct Slot {
    /// The registration order of the entry in this slot; 0 when the slot is free.
    @usableFromInline var sequence: UInt64
    @usableFromInline var element: Element?
    /// For a free slot: the next free slot's index, or -1.
    @usableFromInline var nextFree: Int32

    @inlinable init(sequence: UInt64, element: Element?, nextFree: Int32) {
      self.sequence = sequence
      self.element = element
      self.nextFree = nextFree
    }
  }

  /// Above this capacity an emptied overflow array gives its memory back.
  @usableFromInline static var retainedCapacity: Int { 32 }

  @usableFromInline var inlineElement: Element?
  @usableFromInline var inlineSequence: UInt64 = 0
  @usableFromInline var overflow: ContiguousArray<Slot> = []
  @usableFromInline var freeHead: Int32 = -1
  @usableFromInline var nextSequence: UInt64 = 1
  /// True while no overflow slot was reused, so index order is registration order.
  @usableFromInline var isInRegistrationOrder = true
  /// The number of entries in the table.
  @usableFromInline package private(set) var count = 0

  /// An empty table; allocates nothing.
  @inlinable package init() {}

  /// Whether the table is empty and holds no overflow storage either (so dropping it frees
  /// nothing, and draining it would hand out nothing).
  @inlinable package var isEmptyWithoutStorage: Bool { count == 0 && overflow.capacity == 0 }

  /// Adds `element` and returns the key that removes it.
  @inlinable
  package mutating func insert(_ element: Element) -> RegistrationKey {
    let sequence = nextSequence
    nextSequence &+= 1
    let tag = UInt32(truncatingIfNeeded: sequence)
    defer { count += 1 }
    if count == 0 {
      inlineElement = element
      inlineSequence = sequence
      return RegistrationKey(index: 0, tag: tag)
    }
    let slot = Slot(sequence: sequence, element: element, nextFree: -1)
    let index: Int
    if freeHead >= 0 {
      index = Int(freeHead)
      freeHead = overflow[index].nextFree
      isInRegistrationOrder = false
      overflow[index] = slot
    } else {
      index = overflow.count
      overflow.append(slot)
    }
    return RegistrationKey(index: UInt32(truncatingIfNeeded: index + 1), tag: tag)
  }

  /// Whether `key` refers to an entry still in the table.
  @inlinable
  package func contains(_ key: RegistrationKey) -> Bool {
    if key.index == 0 {
      return inlineElement != nil && UInt32(truncatingIfNeeded: inlineSequence) == key.tag
    }
    let index = Int(key.index) - 1
    return index < overflow.count && overflow[index].sequence != 0
      && UInt32(truncatingIfNeeded: overflow[index].sequence) == key.tag
  }

  /// Removes the entry registered under `key` and returns it (so the caller can release it
  /// outside any lock), or returns `nil` if that entry is no longer in the table.
  @inlinable
  package mutating func remove(_ key: RegistrationKey) -> Element? {
    guard contains(key) else { return nil }
    let removed: Element?
    if key.index == 0 {
      removed = inlineElement.take()
    } else {
      let index = Int(key.index) - 1
      removed = overflow[index].element.take()
      if index == overflow.count - 1 {
        // Removing the newest slot keeps index order intact and needs no free-list entry.
        overflow.removeLast()
      } else {
        overflow[index].sequence = 0
        overflow[index].nextFree = freeHead
        freeHead = Int32(index)
      }
    }
    count -= 1
    if count == 0 { resetOverflow() }
    return removed
  }

  /// Empties the table and returns its entries.
  @inlinable
  package mutating func drain() -> DrainedRegistrations<Element> {
    let drained = DrainedRegistrations(
      inline: inlineElement.take(), overflow: overflow, inRegistrationOrder: isInRegistrationOrder)
    overflow = []
    freeHead = -1
    count = 0
    isInRegistrationOrder = true
    return drained
  }

  /// Called when the last entry left: every overflow slot is free.
  @inlinable
  mutating func resetOverflow() {
    if overflow.capacity > Self.retainedCapacity {
      overflow = []
    } else {
      // Free slots hold nothing, so popping them releases nothing; popping one by one avoids
      // `removeAll(keepingCapacity:)`'s generic and far slower path.
      while !overflow.isEmpty { overflow.removeLast() }
    }
    freeHead = -1
    isInRegistrationOrder = true
  }
}

extension RegistrationTable: Sendable where Element: Sendable {}
extension RegistrationTable.Slot: Sendable where Element: Sendable {}

/// The entries of a drained table, handed out from either end of registration order.
///
/// Each entry is released from here as it is handed out, so a closure lives no longer than its
/// own run.
@usableFromInline
package struct DrainedRegistrations<Element> {
  /// The oldest entry, if the table held one inline.
  @usableFromInline var inline: Element?
  /// Entries in registration order (free slots removed once the order had to be rebuilt).
  @usableFromInline var overflow: ContiguousArray<RegistrationTable<Element>.Slot>
  /// The next overflow index `popOldest()` looks at.
  @usableFromInline var front = 0

  @inlinable
  init(inline: Element?, overflow: ContiguousArray<RegistrationTable<Element>.Slot>, inRegistrationOrder: Bool) {
    self.inline = inline
    self.overflow = overflow
    if !inRegistrationOrder {
      // Slots were reused: put the live ones back in registration order (rare; O(n log n) once).
      self.overflow.removeAll { $0.sequence == 0 }
      self.overflow.sort { $0.sequence < $1.sequence }
    }
  }

  /// Nothing.
  @inlinable package static var empty: DrainedRegistrations {
    DrainedRegistrations(inline: nil, overflow: [], inRegistrationOrder: true)
  }

  /// Whether entries may remain (conservative: `true` may be followed by a `nil`).
  @inlinable package var mayHaveMore: Bool { overflow.count > front || inline != nil }

  /// The newest remaining entry. Do not mix with `popOldest()` on one value.
  @inlinable
  package mutating func popNewest() -> Element? {
    while overflow.count > front, let slot = overflow.popLast() {
      if let element = slot.element { return element }
    }
    return inline.take()
  }

  /// The oldest remaining entry. Do not mix with `popNewest()` on one value.
  @inlinable
  package mutating func popOldest() -> Element? {
    if let first = inline.take() { return first }
    while front < overflow.count {
      defer { front += 1 }
      if let element = overflow[front].element.take() { return element }
    }
    return nil
  }
}

extension DrainedRegistrations: Sendable where Element: Sendable {}
