import Promises
import Testing

/// `async()` comes with `import Promises` alone, as in PromiseKit 6.22/8.
@Suite("async() with import Promises alone")
struct AsyncBridgeTests {
  @Test func awaitingAPromiseReturnsItsValueOrThrowsItsError() async throws {
    #expect(try await Promise.value(3).async() == 3)
    await #expect(throws: TestError(id: 1)) { try await Promise<Int>(error: TestError(id: 1)).async() }
    let (pending, resolver) = Promise<Int>.pending()
    Task { resolver.fulfill(4) }
    #expect(try await pending.async() == 4)
  }

  @Test func awaitingAGuaranteeReturnsItsValue() async {
    #expect(await Guarantee.value(5).async() == 5)
    let (pending, resolve) = Guarantee<Int>.pending()
    Task { resolve(6) }
    #expect(await pending.async() == 6)
  }
}
