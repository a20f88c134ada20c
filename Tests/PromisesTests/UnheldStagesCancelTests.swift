import Promises
import TestSupport
import Testing

/// A cancel made while a stage after a settled `recover`, `ensure` or `ensureThen` waits on a
/// promise a body returned must reach that stage, whether anything holds the stages after the
/// head or not (issue 26, "D1"): the stage is rejected with the cancel, and the body after it
/// never runs with the value.
@Suite("Cancellable promises: a cancel reaches unheld stages after a settled clean-up or recover")
struct UnheldStagesCancelTests {
  struct Boom: Error {}

  /// The shapes of the stages between the head and the tail; `inner` is the pending promise a
  /// body returns.
  enum Shape: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case then, recover, recoverMap, recoverAllErrors, recoverReturningCancellable, cancellableRecover
    case ensureThen, tapThen, recoverEnsure, raceOfEnsureThen, whenOfEnsureThen, raceOfThen
    case ensureThenCleanupThen, tapRecover, whenOfRecover
    case recoverThenRecover, ensureEnsureThen, recoverEnsureThen, ensureRecover

    var testDescription: String { rawValue }

    /// Whether the shape links a context of its own to the head's (through `ensure` or `race`).
    var linksAContextToTheHead: Bool {
      switch self {
      case .ensureThen, .raceOfEnsureThen, .whenOfEnsureThen, .raceOfThen, .ensureThenCleanupThen, .ensureEnsureThen,
        .ensureRecover:
        return true
      default: return false
      }
    }

    func build(_ head: CancellablePromise<Int>, _ inner: Promise<Int>) -> CancellablePromise<Int> {
      let failed = { head.map(on: nil) { _ -> Int in throw Boom() } }
      switch self {
      case .then: return head.then(on: nil) { _ in inner }
      case .recover: return failed().recover(on: nil) { _ in inner }
      case .recoverMap: return failed().recover(on: nil) { _ in inner }.map(on: nil) { $0 }
      case .recoverAllErrors: return failed().recover(on: nil, policy: .allErrors) { _ in inner }
      case .recoverReturningCancellable: return failed().recover(on: nil) { _ in inner.cancellize() }
      case .cancellableRecover: return failed().cancellableRecover(on: nil) { _ in inner.cancellize() }
      case .ensureThen: return head.ensure(on: nil) {}.then(on: nil) { _ in inner }
      case .tapThen: return head.tap(on: nil) { _ in }.then(on: nil) { _ in inner }
      case .recoverEnsure: return failed().recover(on: nil) { _ in inner }.ensure(on: nil) {}
      case .raceOfEnsureThen: return race([head.ensure(on: nil) {}.then(on: nil) { _ in inner }])
      case .whenOfEnsureThen:
        return when(fulfilled: [head.ensure(on: nil) {}.then(on: nil) { _ in inner }]).map(on: nil) { $0[0] }
      case .raceOfThen: return race([head.then(on: nil) { _ in inner }])
      case .ensureThenCleanupThen:
        return head.ensureThen(on: nil) { Promise.value(()).cancellize() }.then(on: nil) { _ in inner }
      case .tapRecover: return failed().tap(on: nil) { _ in }.recover(on: nil) { _ in inner }
      case .whenOfRecover:
        return when(fulfilled: [failed().recover(on: nil) { _ in inner }]).map(on: nil) { $0[0] }
      case .recoverThenRecover:
        return failed().recover(on: nil) { _ in Promise.value(2) }.map(on: nil) { _ -> Int in throw Boom() }
          .recover(on: nil) { _ in inner }
      case .ensureEnsureThen: return head.ensure(on: nil) {}.ensure(on: nil) {}.then(on: nil) { _ in inner }
      case .recoverEnsureThen:
        return failed().recover(on: nil) { _ in Promise.value(2) }.ensure(on: nil) {}.then(on: nil) { _ in inner }
      case .ensureRecover:
        return head.ensure(on: nil) {}.map(on: nil) { _ -> Int in throw Boom() }.recover(on: nil) { _ in inner }
      }
    }
  }

  /// Who cancels, and what is held.
  enum Cancel: String, CaseIterable, Sendable {
    /// The head, nothing holding the stages after it.
    case headTailUnheld
    /// The head, the tail held.
    case headTailHeld
    /// The tail (held).
    case tail
  }

  @Test(arguments: Shape.allCases, Cancel.allCases)
  func aCancelMadeWhileABodysPromiseIsPendingRejectsTheTail(shape: Shape, cancel: Cancel) {
    check(shape, cancel, settleTheHeadFirst: false)
  }

  @Test(arguments: Shape.allCases, Cancel.allCases)
  func aCancelMadeWhileABodysPromiseIsPendingRejectsTheTailBuiltOnASettledHead(shape: Shape, cancel: Cancel) {
    check(shape, cancel, settleTheHeadFirst: true)
  }

  /// Builds `shape` on a pending head (settled before or after the stages were built), lets go of
  /// the stages (or holds the tail), cancels, then settles the promise the body returned.
  func check(_ shape: Shape, _ cancel: Cancel, settleTheHeadFirst: Bool) {
    let (head, resolver) = CancellablePromise<Int>.pending()
    if settleTheHeadFirst { resolver.fulfill(1) }
    let (inner, seal) = Promise<Int>.pending()
    let cancelReturned = Counter()
    let seen = Recorder<String>()
    let tail: CancellableFinalizer? = {
      let end = shape.build(head, inner).done(on: nil) { value in
        seen.record(cancelReturned.value > 0 ? "value \(value) after the cancel" : "value \(value)")
      }
      let finalizer = end.catch(on: nil, policy: .allErrors) { error in
        seen.record("rejected, cancelled: \(isPMKCancelled(error)), isCancelled: \(error.isCancelled)")
      }
      return cancel == .headTailUnheld ? nil : finalizer
    }()
    if !settleTheHeadFirst { resolver.fulfill(1) }
    #expect(seen.values.isEmpty, "the tail waits on the pending promise the body returned")
    if cancel == .tail { tail?.cancel() } else { head.cancel() }
    cancelReturned.increment()
    seal.fulfill(5)
    #expect(seen.values == ["rejected, cancelled: true, isCancelled: true"])
    withExtendedLifetime(tail) {}
  }
}
