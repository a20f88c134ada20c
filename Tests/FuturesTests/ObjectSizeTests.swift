import Futures
import TestSupport
import Testing

/// A derived stage is allocated by the thousand in a long chain before any is freed: it must stay
/// within the allocator's 128-byte fast bins, which package-benchmark's malloc interposer leaves
/// 112 bytes of (see docs/performance.md).
@Suite("Futures: objects stay small")
struct FutureObjectSizeTests {
  @Test func anImmediateMapStageOfAnIntFutureFitsTheFastBins() {
    let root = Futures.Promise<Int>()
    let stage = root.future.map(.immediate) { $0 + 1 }
    #expect(instanceSize(of: type(of: stage)) <= 104)
    root.completeWithSuccess(1)
  }
}
