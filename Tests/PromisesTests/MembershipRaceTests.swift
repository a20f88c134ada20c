import Promises
import TestSupport
import Testing

/// Stress: a member of a cancellable chain settling, joining, being wrapped into a second chain or
/// followed, each raced on two threads against its chain's cancel or close. The settle leaves its
/// chain without a reference of its own to its member, and a member joins by moving its only
/// reference into the source's list (docs/architecture.md, "The checked model of chain
/// membership"); under the sanitizers in CI a member or source freed too early fails here.
@Suite("Stress: chain membership races")
struct MembershipRaceTests {
  static let n = Stress.iterations(20_000)

  // 1. A settle racing the close of its context (the context's last reference dropped).
  final class Droppable: Sendable {
    let member: Locked<CancellablePromise<Int>?>
    let promise: Promise<Int>
    let resolver: Resolver<Int>
    init() {
      let (member, resolver) = CancellablePromise<Int>.pending()
      (promise, self.resolver) = (member.promise, resolver)
      self.member = Locked(member)
    }
    func drop() { _ = member.withLock { $0.take() } }
  }

  @Test func settleRacingClose() {
    race(iterations: Self.n) {
      Droppable()
    } _: { d in
      d.resolver.fulfill(1)
    } _: { d in
      d.drop()
    } check: { d in
      #expect(d.promise.value == 1)
    }
  }

  // 1b. A settle of a chain of stages racing the close of the chain's context.
  final class DroppableChain: Sendable {
    let chain: Locked<(CancellablePromise<Int>, CancellablePromise<Int>)?>
    let tail: Promise<Int>
    let resolver: Resolver<Int>
    init(stages: Int) {
      let (root, resolver) = CancellablePromise<Int>.pending()
      var tail = root
      for _ in 0..<stages { tail = tail.map(on: nil) { $0 + 1 } }
      self.resolver = resolver
      self.tail = tail.promise
      chain = Locked((root, tail))
    }
    func drop() { _ = chain.withLock { $0.take() } }
  }

  @Test func chainSettleRacingClose() {
    race(iterations: Stress.iterations(5_000)) {
      DroppableChain(stages: 10)
    } _: { d in
      d.resolver.fulfill(0)
    } _: { d in
      d.drop()
    } check: { d in
      #expect(d.tail.value == 10)
    }
  }

  // 1c. Cancel then drop on one thread, settle on the other, through a chain.
  @Test func chainSettleRacingCancelAndClose() {
    race(iterations: Stress.iterations(5_000)) {
      DroppableChain(stages: 10)
    } _: { d in
      d.resolver.fulfill(0)
    } _: { d in
      let taken = d.chain.withLock { $0.take() }
      taken?.1.cancel()
    } check: { d in
      expectFulfilledOrCancelled(d.tail, value: 10)
    }
  }

  // 2. Joining (joinUnshared: the reference moved into the list, possibly the `.cancelled` branch)
  // racing a cancel of the same context on the other thread.
  final class Joining: Sendable {
    let root: CancellablePromise<Int>
    let resolver: Resolver<Int>
    let tails = Locked<[Promise<Int>]>([])
    init() { (root, resolver) = CancellablePromise<Int>.pending() }
    func join(stages: Int) {
      var collected: [Promise<Int>] = []
      for _ in 0..<stages {
        // Each is a new member of the root's context, joined on this thread.
        collected.append(root.map(on: nil) { $0 + 1 }.promise)
        collected.append(
          CancellablePromise<Int>(Promise<Int>.pending().promise, cancelContext: root.cancelContext).promise)
      }
      tails.withLock { $0 = collected }
    }
  }

  @Test func joinRacingCancel() {
    race(iterations: Stress.iterations(10_000)) {
      Joining()
    } _: { j in
      j.join(stages: 4)
    } _: { j in
      j.root.cancel()
    } check: { j in
      for p in j.tails.withLock({ $0 }) { #expect(isPMKCancelled(p.error)) }
    }
  }

  @Test func joinAndFulfilRacingCancel() {
    race(iterations: Stress.iterations(10_000)) {
      Joining()
    } _: { j in
      j.join(stages: 4)
      j.resolver.fulfill(0)
    } _: { j in
      j.root.cancel()
    } check: { j in
      let tails = j.tails.withLock { $0 }
      for (i, p) in tails.enumerated() where i % 2 == 0 {
        let ok = p.value == 1 || isPMKCancelled(p.error)
        #expect(ok)
      }
    }
  }

  // 3. One promise wrapped into two chains (attachMember, the earlier member leaving through a
  // callback), racing a cancel of the first chain.
  final class Wrapped: Sendable {
    let promise: Promise<Int>
    let resolver: Resolver<Int>
    let first: Locked<CancellablePromise<Int>?>
    let second = Locked<CancellablePromise<Int>?>(nil)
    init() {
      (promise, resolver) = Promise<Int>.pending()
      first = Locked(CancellablePromise(promise: promise, resolver: resolver))
    }
  }

  @Test func attachRacingCancelOfTheFirstChain() {
    race(iterations: Self.n) {
      Wrapped()
    } _: { w in
      let second = CancellablePromise(promise: w.promise, resolver: w.resolver)
      w.second.withLock { $0 = second }
      w.resolver.fulfill(1)
    } _: { w in
      let first = w.first.withLock { $0.take() }
      first?.cancel()
    } check: { w in
      expectFulfilledOrCancelled(w.promise)
    }
  }

  @Test func attachRacingCloseOfTheFirstChain() {
    race(iterations: Self.n) {
      Wrapped()
    } _: { w in
      let second = CancellablePromise(promise: w.promise, resolver: w.resolver)
      w.resolver.fulfill(1)
      _ = second
    } _: { w in
      _ = w.first.withLock { $0.take() }
    } check: { w in
      #expect(w.promise.value == 1)
    }
  }

  @Test func settleOfATwiceWrappedPromiseRacingBothCancels() {
    race(iterations: Self.n) {
      () -> Wrapped in
      let w = Wrapped()
      let second = CancellablePromise(promise: w.promise, resolver: w.resolver)
      w.second.withLock { $0 = second }
      return w
    } _: { w in
      w.resolver.fulfill(1)
      _ = w.first.withLock { $0.take() }
    } _: { w in
      let second = w.second.withLock { $0.take() }
      second?.cancel()
      let first = w.first.withLock { $0.take() }
      first?.cancel()
    } check: { w in
      expectFulfilledOrCancelled(w.promise)
    }
  }

  @Test func attachRacingCancelOfTheSecondChain() {
    // The second chain's context is shared: cancelled on the other thread while the promise
    // joins it (adopt: addMember then attachMember).
    final class Shared: Sendable {
      let promise: Promise<Int>
      let resolver: Resolver<Int>
      let first: CancellablePromise<Int>
      let context = CancelContext()
      let members = Locked<[CancellablePromise<Int>]>([])
      init() {
        (promise, resolver) = Promise<Int>.pending()
        first = CancellablePromise(promise: promise, resolver: resolver)
      }
    }
    race(iterations: Self.n) {
      Shared()
    } _: { s in
      let m = CancellablePromise(s.promise, cancelContext: s.context)
      s.members.withLock { $0.append(m) }
      s.resolver.fulfill(1)
    } _: { s in
      s.context.cancel()
      s.first.cancel()
    } check: { s in
      expectFulfilledOrCancelled(s.promise)
    }
  }

  // 4. FollowStage: a pending promise wrapped into a new chain, its settle racing the chain's
  // cancel, or the chain's close.
  final class Following: Sendable {
    let followed: Promise<Int>
    let resolver: Resolver<Int>
    let follower: Locked<CancellablePromise<Int>?>
    let followerPromise: Promise<Int>
    init() {
      (followed, resolver) = Promise<Int>.pending()
      let f = CancellablePromise(followed)
      followerPromise = f.promise
      follower = Locked(f)
    }
  }

  @Test func followStageSettleRacingCancel() {
    race(iterations: Self.n) {
      Following()
    } _: { f in
      f.resolver.fulfill(1)
    } _: { f in
      let taken = f.follower.withLock { $0.take() }
      taken?.cancel()
    } check: { f in
      expectFulfilledOrCancelled(f.followerPromise)
    }
  }

  @Test func followStageSettleRacingClose() {
    race(iterations: Self.n) {
      Following()
    } _: { f in
      f.resolver.fulfill(1)
    } _: { f in
      _ = f.follower.withLock { $0.take() }
    } check: { f in
      #expect(f.followerPromise.value == 1)
    }
  }

  // 5. A released source (a recover branch whose context went away while its member waits): the
  // last member's settle closes it (drained) while the chain before cancels it through its link.
  final class Branch: Sendable {
    let root: CancellablePromise<Int>
    let resolver: Resolver<Int>
    /// Kept, never used: the branch's promise stays pending (and is not logged as dropped pending).
    let inner: Resolver<Int>
    let branchPromise: Promise<Int>
    init() {
      (root, resolver) = CancellablePromise<Int>.pending()
      let (innerPromise, inner) = Promise<Int>.pending()
      self.inner = inner
      let branch = root.recover(on: nil) { _ in innerPromise }
      branchPromise = branch.promise
    }
  }

  @Test func releasedBranchDrainRacingUpstreamCancel() {
    race(iterations: Stress.iterations(10_000)) {
      Branch()
    } _: { b in
      b.resolver.fulfill(1)
    } _: { b in
      b.root.cancel()
    } check: { b in
      expectFulfilledOrCancelled(b.branchPromise)
    }
  }
}
