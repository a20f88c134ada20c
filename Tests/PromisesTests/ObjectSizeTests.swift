import Promises
import TestSupport
import Testing

/// A synchronous `map` stage is allocated by the thousand in a long chain before any is freed: it
/// must stay within the allocator's 128-byte fast bins, which package-benchmark's malloc
/// interposer leaves 112 bytes of (see docs/performance.md).
@Suite("Promise objects stay small")
struct PromiseObjectSizeTests {
  @Test func aSynchronousMapStageOfAnIntPromiseFitsTheFastBins() {
    let stage = Promise.value(1).map(on: nil) { $0 + 1 }
    #expect(instanceSize(of: type(of: stage)) <= 104)
  }

  @Test func aPromiseOfAnIntFitsTheFastBins() {
    #expect(instanceSize(of: Promise<Int>.self) <= 104)
  }
}
