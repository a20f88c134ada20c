import Dispatch
import Foundation
import Futures
import TestSupport
import Testing

@Suite("Futures: every executor argument is honoured")
struct ExecutorTests {
  @Test func queueExecutorRunsBlocksOnThatQueue() async {
    let queue = QueueProbe.make("blocks")
    let promise = Futures.Promise<Int>()
    let labels: [Future<String?>] = [
      promise.future.onComplete(.queue(queue)) { _ in .success(QueueProbe.label) },
      promise.future.onSuccess(.queue(queue)) { _ in QueueProbe.label },
      promise.future.map(.queue(queue)) { _ in QueueProbe.label },
    ]
    let failed = Futures.Promise<Int>()
    let onFail = failed.future.onFail(.queue(queue)) { _ in #expect(QueueProbe.label == "blocks") }
    let cancelled = Futures.Promise<Int>()
    let onCancel = cancelled.future.onCancel(.queue(queue)) { #expect(QueueProbe.label == "blocks") }
    promise.completeWithSuccess(1)
    failed.completeWithFail(TestError())
    cancelled.completeWithCancel()
    for future in labels {
      #expect(describe(await future.completion()) == "success(Optional(\"blocks\"))")
    }
    #expect(await onFail.completion().error != nil)
    #expect(await onCancel.completion().isCancelled)
  }

  @Test func immediateRunsOnTheCompletingThreadAndAtOnceWhenAlreadyCompleted() async {
    let promise = Futures.Promise<Int>()
    let thread = Recorder<UInt>()
    promise.future.onSuccess(.immediate) { _ in thread.record(currentThreadID()) }
    let completingThread: UInt = await withCheckedContinuation { continuation in
      Thread {
        promise.completeWithSuccess(1)
        continuation.resume(returning: currentThreadID())
      }.start()
    }
    #expect(thread.values == [completingThread])
    promise.future.onSuccess(.immediate) { _ in thread.record(currentThreadID()) }
    #expect(thread.values == [completingThread, currentThreadID()])
  }

  @Test func mainExecutorRunsOnTheMainQueue() async {
    let key = DispatchSpecificKey<String>()
    DispatchQueue.main.setSpecific(key: key, value: "main")
    let promise = Futures.Promise<Int>()
    let onMain = promise.future.map(.main) { _ in DispatchQueue.getSpecific(key: key) }
    DispatchQueue.global().async { promise.completeWithSuccess(1) }
    #expect(await onMain.completion().value == Optional("main"))
  }

  @Test func asyncExecutorRunsOffTheCallingThreadAndOffTheMainThread() async {
    let probe = QueueProbe.make("caller")
    let outcome: (Bool, String?, UInt, UInt) = await withCheckedContinuation { continuation in
      probe.async {
        let caller = currentThreadID()
        Future(success: 1).map(.async) { _ in (Thread.isMainThread, QueueProbe.label, currentThreadID()) }
          .onSuccess(.immediate) { continuation.resume(returning: ($0.0, $0.1, $0.2, caller)) }
      }
    }
    #expect(outcome.0 == false)
    #expect(outcome.1 == nil)
    #expect(outcome.2 != outcome.3)
  }

  @Test func operationQueueExecutorAddsAnOperationToThatQueue() async {
    let queue = OperationQueue()
    queue.name = "operations"
    let ran = await Future(success: 1).map(.operationQueue(queue)) { _ in OperationQueue.current?.name }
      .completion()
    #expect(ran.value == Optional("operations"))
  }

  @Test func customExecutorIsHandedTheWork() async {
    let submitted = Counter()
    let queue = QueueProbe.make("custom")
    let executor = Executor.custom { work in
      submitted.increment()
      queue.async(execute: work)
    }
    let label = await Future(success: 1).map(executor) { _ in QueueProbe.label }.completion()
    #expect(label.value == Optional("custom"))
    #expect(submitted.value == 1)
  }

  @Test func currentAndPrimaryNameTheExecutorRunningTheRegisteringBlock() async {
    let queue = QueueProbe.make("outer")
    let labels: (String?, String?, String?) = await withCheckedContinuation { continuation in
      Future(success: 1).onSuccess(.queue(queue)) { _ in
        let inner = Futures.Promise<Int>()
        let current = inner.future.map(.current) { _ in QueueProbe.label }
        let primary = inner.future.map { _ in QueueProbe.label }
        let explicitPrimary = inner.future.map(.primary) { _ in QueueProbe.label }
        // Completed from another thread: the blocks still go to the registering block's queue.
        Thread { inner.completeWithSuccess(1) }.start()
        combineFutures(current, primary, explicitPrimary).onSuccess(.immediate) { continuation.resume(returning: $0) }
      }
    }
    #expect(labels.0 == "outer")
    #expect(labels.1 == "outer")
    #expect(labels.2 == "outer")
  }

  @Test func currentOnAPlainThreadIsAsyncAndOnTheMainThreadIsMain() async {
    let outcome: Bool = await withCheckedContinuation { continuation in
      Thread {
        Future(success: 1).map(.current) { _ in Thread.isMainThread }.onSuccess(.immediate) {
          continuation.resume(returning: $0)
        }
      }.start()
    }
    #expect(outcome == false)
    let key = DispatchSpecificKey<String>()
    DispatchQueue.main.setSpecific(key: key, value: "main")
    let onMain: Bool = await withCheckedContinuation { continuation in
      DispatchQueue.main.async {
        let promise = Futures.Promise<Int>()
        promise.future.map(.current) { _ in DispatchQueue.getSpecific(key: key) == "main" }.onSuccess(.immediate) {
          continuation.resume(returning: $0)
        }
        DispatchQueue.global().async { promise.completeWithSuccess(1) }
      }
    }
    #expect(onMain)
  }

  @Test func requestHandlersRunOnTheirExecutor() async {
    let queue = QueueProbe.make("handler")
    let promise = Futures.Promise<Int>()
    let label = Recorder<String?>()
    promise.onRequestCancel(.queue(queue)) { _ in
      label.record(QueueProbe.label)
      return .complete(.cancelled)
    }
    promise.future.getCancelToken().cancel()
    #expect(await promise.future.completion().isCancelled)
    #expect(label.values == ["handler"])
  }
}
