import Futures
import Testing

@Suite("Futures re-exports the core")
struct FuturesReexportTests {
  @Test func coreTypesAreVisibleThroughTheFacade() {
    let source = CancelSource()
    source.cancel()
    #expect(source.signal.isCancelled)
  }
}
