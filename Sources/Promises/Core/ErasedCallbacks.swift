import CancelCore

/// The value type of ``ErasedCallbackMachine``, a stand-in: its callbacks are only moved and
/// freed, never called.
@usableFromInline
struct ErasedCallbackValue: Sendable {}

/// A promise's or guarantee's settle-once machine with the type of its value erased.
///
/// The machine's layout does not depend on the value: a ``PromiseCallback`` holds a closure or a
/// stage and a function, and a function's representation (its code and its context) is the same
/// whatever its parameters are. A machine seen as this type is therefore laid out as the real one,
/// field for field; moving the waiting callbacks out through it and freeing them (releasing each
/// closure's context or stage, and the overflow table, which free themselves through their own
/// metadata) is what the real type would do.
///
/// Why: a generic class's `deinit` runs unspecialized, and reaching its machine through its real
/// type looks up the generic metadata of the machine, its callbacks and their batch at run time
/// (what that cost: docs/performance.md, "Generic code that ran unspecialized").
/// `PromiseLayoutTests` checks that the machine is where ``machineAddress(lockStorage:)`` says.
@usableFromInline
typealias ErasedCallbackMachine = SettleStateMachine<Void, PromiseCallback<ErasedCallbackValue>>

/// Where a promise's or guarantee's machine is, given its lock storage: it follows the 4-byte lock
/// at the machine's own alignment, which does not depend on the value type (see
/// ``ErasedCallbackMachine``).
@inlinable @inline(__always)
func machineAddress(lockStorage: UnsafeMutablePointer<CoreLockStorage>) -> UnsafeMutableRawPointer {
  (UnsafeMutableRawPointer(lockStorage) + MemoryLayout<CoreLockStorage>.size)
    .alignedUp(toMultipleOf: MemoryLayout<ErasedCallbackMachine>.alignment)
}

/// Whether the erased view of the machine (see ``ErasedCallbackMachine``) ends where `next`, the
/// field after the machine, starts: the check each initializer makes that the view covers the
/// machine exactly (it folds to a constant where the initializer is specialized).
@inlinable @inline(__always)
func erasedMachine<Next>(endsAt next: UnsafeMutablePointer<Next>, lockStorage: UnsafeMutablePointer<CoreLockStorage>)
  -> Bool
{
  let end = machineAddress(lockStorage: lockStorage) + MemoryLayout<ErasedCallbackMachine>.size
  return end.alignedUp(toMultipleOf: MemoryLayout<Next>.alignment) == UnsafeMutableRawPointer(next)
}

/// Frees the callbacks still waiting in the machine at `address` (a pending promise or guarantee
/// being freed), in a loop rather than one inside the other (a waiting stage holds the stages
/// after it), without looking up the machine's generic metadata (see
/// ``ErasedCallbackMachine``). Outside `deinit`'s unspecialized code, so that it is compiled for
/// the erased types once.
@usableFromInline @inline(never)
func releaseWaitingCallbacks(ofMachineAt address: UnsafeMutableRawPointer) {
  address.withMemoryRebound(to: ErasedCallbackMachine.self, capacity: 1) { machine in
    guard machine.pointee.hasWaiting else { return }
    // Moved straight in: a copy kept here would be freed after the release returned, recursing.
    IterativeRelease.release(machine.pointee.takeWaiting())
  }
}
