import Foundation

/// Runs `body` on a fresh thread with a small stack and returns its value, without blocking a
/// thread of the cooperative pool.
///
/// The tests that prove a deep chain needs no deep stack run it here: a recursion as deep as
/// their chains would overflow such a stack many times over.
///
/// - Parameters:
///   - bytes: the thread's stack size; 512 KiB by default.
///   - body: the work.
/// - Returns: what `body` returns.
@discardableResult
public func onSmallStack<T: Sendable>(_ bytes: Int = 512 << 10, _ body: @escaping @Sendable () -> T) async -> T {
  await withCheckedContinuation { continuation in
    let thread = Thread { continuation.resume(returning: body()) }
    thread.stackSize = bytes
    thread.start()
  }
}
