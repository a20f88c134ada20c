import CancelCore
import TestSupport
import Testing

@Suite("The Cancellable protocol")
struct CancellableTests {
  struct ValueCanceller: Cancellable {
    let counter: Counter
    func cancel() { counter.increment() }
  }

  @Test func valueTypesAndClassesConform() {
    let counter = Counter()
    let source = CancelSource()
    let all: [any Cancellable] = [ValueCanceller(counter: counter), source]
    for item in all { item.cancel() }
    #expect(counter.value == 1)
    #expect(source.isCancelled)
  }

  @Test func taskConforms() async {
    let task = Task<Bool, Never> {
      // Not `await CancelSource().signal.cancelled()`: that source, dropped at once, closes, which
      // ends the wait before the cancel whenever the task starts first.
      try? await suspendUntilCancelled()
      return Task.isCancelled
    }
    let asCancellable: any Cancellable = task
    asCancellable.cancel()
    #expect(await task.value)
  }

  @Test func aSourceCanCancelAnotherThroughAHandler() {
    let first = CancelSource()
    let second = CancelSource()
    let target: any Cancellable = second
    first.signal.onCancel { target.cancel() }
    first.cancel()
    #expect(second.isCancelled)
  }
}
