import Promises

extension CancellablePromise {
  /// Runs `operation` in a new task; the promise resolves with its outcome, and cancelling the
  /// promise (or its chain) cancels the task.
  ///
  /// The cancel rejects the promise at once (with `PMKError.cancelled`, or the error given to
  /// `cancel(error:)`), as every cancellable chain does, and cancels the task: the operation sees
  /// `Task.isCancelled`, its cancellation-aware awaits throw, and whatever it returns afterwards
  /// is ignored (the first resolution wins).
  ///
  /// - Parameters:
  ///   - priority: the task's priority; `nil` inherits the current one.
  ///   - operation: the work.
  public convenience init(priority: TaskPriority? = nil, operation: @escaping @Sendable () async throws -> T) {
    self.init { (resolver: Resolver<T>) in
      let task = Task(priority: priority) {
        do {
          resolver.fulfill(try await operation())
        } catch {
          resolver.reject(error)
        }
      }
      return { task.cancel() }
    }
  }
}
