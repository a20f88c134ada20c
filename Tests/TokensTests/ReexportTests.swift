import Testing
import Tokens

@Suite("Tokens re-exports the core")
struct TokensReexportTests {
  @Test func coreTypesAreVisibleThroughTheFacade() {
    let source = CancelSource()
    source.cancel()
    #expect(source.signal.isCancelled)
  }
}
