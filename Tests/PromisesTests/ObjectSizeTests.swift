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

  @Test func cancellableStagesOfAnIntPromiseFitTheFastBins() {
    let (root, _) = CancellablePromise<Int>.pending()
    let mapped = root.map(on: nil) { $0 + 1 }
    let nested = root.then(on: nil) { Promise.value($0).cancellize() }
    #expect(instanceSize(of: type(of: mapped.promise)) <= 112)
    #expect(instanceSize(of: type(of: nested.promise)) <= instanceSize(of: type(of: mapped.promise)))
  }

  @Test func aSynchronousMapStageOfAnIntGuaranteeFitsTheFastBins() {
    let (guarantee, _) = Guarantee<Int>.pending()
    let stage = guarantee.map(on: nil) { $0 + 1 }
    #expect(instanceSize(of: type(of: stage)) <= 104)
  }

  @Test func aPromiseOfAnIntFitsTheFastBins() {
    #expect(instanceSize(of: Promise<Int>.self) <= 104)
  }
}
