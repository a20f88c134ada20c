import CancelCore
import Dispatch
import TestSupport
import Testing
import Tokens

/// Cancel handlers are `sending`: a handler may capture a handle that is not `Sendable`, handed
/// over by the code that started the work. These tests compile only if that holds in Swift 6 mode.
@Suite("Handlers that capture a handle that is not Sendable")
struct NonSendableHandleTests {
  /// A handle to some work, not `Sendable` (as `DispatchWorkItem` is not on every platform).
  final class WorkHandle {
    let stopped: Recorder<String>
    let name: String
    init(_ name: String, stopped: Recorder<String>) {
      self.name = name
      self.stopped = stopped
    }
    func stop() { stopped.record(name) }
  }

  @Test func aTokenHandlerStopsAHandleHandedOverToIt() {
    let stopped = Recorder<String>()
    let request = CancellationRequest()
    func start(_ name: String) {
      let handle = WorkHandle(name, stopped: stopped)
      request.token.onCancel { handle.stop() }
    }
    start("download")
    let withReason = WorkHandle("upload", stopped: stopped)
    request.token.onCancel { _ in withReason.stop() }
    request.cancel()
    #expect(stopped.values == ["upload", "download"])  // newest first
  }

  @Test func aHandlerOnAQueueStopsItsHandleThere() async {
    let stopped = Recorder<String>()
    let request = CancellationRequest()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      let item = DispatchWorkItem {}
      let handle = WorkHandle("item", stopped: stopped)
      request.token.onCancel(on: .global()) {
        item.cancel()
        handle.stop()
        done.resume()
      }
      request.cancel()
    }
    #expect(stopped.values == ["item"])
  }

  @Test func aCoreSignalHandlerStopsAHandleHandedOverToIt() {
    let stopped = Recorder<String>()
    let source = CancelSource()
    let handle = WorkHandle("process", stopped: stopped)
    source.signal.onCancel { handle.stop() }
    let other = WorkHandle("connection", stopped: stopped)
    source.signal.onCancel { (_: any Error) in other.stop() }
    source.cancel()
    #expect(stopped.values == ["connection", "process"])
  }
  /// A view model as docs/semantics.md shows it: a handler on the main queue assumes the main
  /// actor to touch the model's state; one that needs another actor starts a task.
  @MainActor final class ViewModel {
    var status = ""
    let connection = Connection()

    func watch(_ token: CancellationToken, then done: @escaping @Sendable () -> Void) {
      token.onCancel(on: .main) {
        MainActor.assumeIsolated { self.status = "cancelled" }
        done()
      }
      token.onCancel { [connection] in Task { await connection.close() } }
    }
  }

  actor Connection {
    var closed = false
    var onClose: (@Sendable () -> Void)?
    func close() {
      closed = true
      onClose?()
    }
    func whenClosed(_ body: @escaping @Sendable () -> Void) {
      if closed { body() } else { onClose = body }
    }
  }

  @Test @MainActor func aMainActorModelsHandlersReachItsStateAndAnotherActor() async {
    let model = ViewModel()
    let request = CancellationRequest()
    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
      model.watch(request.token) { done.resume() }
      request.cancel()
    }
    #expect(model.status == "cancelled")
    await withCheckedContinuation { (closed: CheckedContinuation<Void, Never>) in
      Task { await model.connection.whenClosed { closed.resume() } }
    }
    #expect(await model.connection.closed)
  }
}
