import Promises
import TestSupport
import Testing

@Suite("Promises: a recover branch after an ensure")
struct RecoverBranchTests {
  @Test func cancellingARecoverBranchAfterAnEnsureCancelsTheWholeChainBeforeIt() {
    let (root, _) = CancellablePromise<Int>.pending()
    let cleaned = Counter()
    let ensured = root.ensure(on: nil) { cleaned.increment() }
    let mapped = ensured.map(on: nil) { $0 + 1 }
    let branch = mapped.recover(on: nil, policy: .allErrors) { _ in Promise.value(0) }
    branch.cancel()
    for member in [root, ensured, mapped, branch] {
      #expect(member.error?.isCancellation == true)
      #expect(member.cancelAttempted)
    }
    #expect(cleaned.value == 1)
  }
}
