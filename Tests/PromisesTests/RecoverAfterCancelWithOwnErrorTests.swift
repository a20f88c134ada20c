import Promises
import TestSupport
import Testing

/// A cancel with an error of the caller's own (not a cancellation) is still a cancel of the chain:
/// a default-policy `recover` runs its body with the error (its policy covers it), but the branch
/// after it is cancelled, as in PromiseKit 7 (issue 26, the differential tester's "a cancel of a
/// member before a settled recover does not reach the stages after the recover"). Only
/// `policy: .allErrors` lets the branch go on.
@Suite("Cancellable promises: a recover after a cancel with the caller's own error")
struct RecoverAfterCancelWithOwnErrorTests {
  struct Own: Error, Equatable { let code: Int }

  /// How the recover is spelled.
  enum Spelling: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case recover, cancellableRecover, recoverReturningPending
    var testDescription: String { rawValue }

    /// The recover on `chain`, whose body records that it ran; a pending body result is settled
    /// by `settleLater`.
    func build(
      _ chain: CancellablePromise<Int>, policy: CatchPolicy, ran: Recorder<String>,
      settleLater: Locked<Resolver<Int>?>
    ) -> CancellablePromise<Int> {
      switch self {
      case .recover:
        return chain.recover(on: nil, policy: policy) { error -> Promise<Int> in
          ran.record("recover \(error)")
          return Promise.value(7)
        }
      case .cancellableRecover:
        return chain.cancellableRecover(on: nil, policy: policy) { error -> CancellablePromise<Int> in
          ran.record("recover \(error)")
          return Promise.value(7).cancellize()
        }
      case .recoverReturningPending:
        return chain.recover(on: nil, policy: policy) { error -> Promise<Int> in
          ran.record("recover \(error)")
          let (promise, resolver) = Promise<Int>.pending()
          settleLater.withLock { $0 = resolver }
          return promise
        }
      }
    }
  }

  @Test(arguments: Spelling.allCases, [false, true])
  func theStagesAfterADefaultPolicyRecoverAreRejectedWithTheError(spelling: Spelling, cancelFirst: Bool) throws {
    let (root, _) = Promise<Int>.pending()
    let chain = root.cancellize()
    let ran = Recorder<String>()
    let settleLater = Locked<Resolver<Int>?>(nil)
    if cancelFirst { chain.cancel(error: Own(code: 999)) }
    let recovered = spelling.build(chain, policy: .allErrorsExceptCancellation, ran: ran, settleLater: settleLater)
    let after = recovered.map(on: nil) { value -> Int in
      ran.record("map \(value)")
      return value + 20
    }
    if !cancelFirst { chain.cancel(error: Own(code: 999)) }
    settleLater.withLock { $0 }?.fulfill(7)
    // The body ran with the cancel's error (its policy covers it) and its value arrived...
    #expect(ran.values == ["recover \(Own(code: 999))"])
    #expect(recovered.value == 7)
    // ...but the chain is cancelled: the stage after the recover never ran its body.
    #expect(after.isRejected)
    #expect(after.error as? Own == Own(code: 999))
    #expect(after.isCancelled)
    #expect(after.cancelAttempted)
    // A stage added now is rejected at once.
    let later = recovered.map(on: nil) { $0 }
    #expect(later.error as? Own == Own(code: 999))
  }

  @Test(arguments: [false, true])
  func aVoidRecoverAfterTheCancelIsFollowedByRejectedStages(cancelFirst: Bool) {
    let (root, _) = Promise<Void>.pending()
    let chain = root.cancellize()
    let ran = Recorder<String>()
    if cancelFirst { chain.cancel(error: Own(code: 5)) }
    let recovered = chain.recover(on: nil) { error in ran.record("recover \(error)") }
    let after = recovered.map(on: nil) { _ in ran.record("map") }
    if !cancelFirst { chain.cancel(error: Own(code: 5)) }
    #expect(ran.values == ["recover \(Own(code: 5))"])
    #expect(recovered.isFulfilled)
    #expect(after.error as? Own == Own(code: 5))
  }

  @Test(arguments: [false, true])
  func anAllErrorsRecoverLetsTheBranchGoOn(cancelFirst: Bool) {
    let (root, _) = Promise<Int>.pending()
    let chain = root.cancellize()
    if cancelFirst { chain.cancel(error: Own(code: 1)) }
    let after = chain.recover(on: nil, policy: .allErrors) { _ in Promise.value(7) }.map(on: nil) { $0 + 20 }
    if !cancelFirst { chain.cancel(error: Own(code: 1)) }
    #expect(after.value == 27)
    #expect(!after.cancelAttempted)
  }

  @Test func anErrorThatIsNotTheCancelLetsTheBranchGoOn() {
    let (root, resolver) = Promise<Int>.pending()
    let chain = root.cancellize()
    let after = chain.recover(on: nil) { _ in Promise.value(7) }.map(on: nil) { $0 + 20 }
    resolver.reject(Own(code: 2))
    #expect(after.value == 27)
    #expect(!chain.cancelAttempted)
  }
}
