import Promises
import Testing

@Suite("Promises re-exports the core")
struct PromisesReexportTests {
  @Test func coreTypesAreVisibleThroughTheFacade() {
    let source = CancelSource()
    source.cancel()
    #expect(source.signal.isCancelled)
  }
}
