import Adapters
import Testing

@Suite("Adapters re-exports the core")
struct AdaptersReexportTests {
  @Test func coreTypesAreVisibleThroughTheFacade() {
    let source = CancelSource()
    source.cancel()
    #expect(source.signal.isCancelled)
  }
}
