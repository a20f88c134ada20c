import CancelCore
import Foundation
import Testing

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

@Suite("Error.isCancellation")
struct ErrorClassificationTests {
  struct Plain: Error {}
  struct Custom: CancellableError { var isCancelled: Bool }

  @Test(arguments: [
    (CancellationError() as any Error, true),
    (TimeoutError(timeout: .seconds(1)), true),
    (Custom(isCancelled: true), true),
    (Custom(isCancelled: false), false),
    (URLError(.cancelled), true),
    (URLError(.timedOut), false),
    (CocoaError(.userCancelled), true),
    (CocoaError(.fileNoSuchFile), false),
    (POSIXError(.ECANCELED), true),
    (POSIXError(.EINTR), false),
    (NSError(domain: NSPOSIXErrorDomain, code: Int(ECANCELED)), true),
    (NSError(domain: NSURLErrorDomain, code: NSURLErrorCancelled), true),
    (NSError(domain: NSCocoaErrorDomain, code: NSUserCancelledError), true),
    (NSError(domain: "elsewhere", code: Int(ECANCELED)), false),
    (Plain(), false),
  ])
  func classifies(error: any Error, isCancellation: Bool) {
    #expect(error.isCancellation == isCancellation, "\(error)")
  }

  @Test func timeoutErrorRemembersItsTimeout() {
    let error = TimeoutError(timeout: .milliseconds(250))
    #expect(error.timeout == .milliseconds(250))
    #expect(error.isCancelled)
    #expect(error.description.contains("250 ms"))
  }

  @Test(arguments: [
    (Duration.milliseconds(50), "50 ms"), (.nanoseconds(49_969_027), "50 ms"), (.microseconds(100), "0.1 ms"),
    (.zero, "0 ms"), (.seconds(2.5), "2.5 s"), (.seconds(5), "5 s"), (.milliseconds(1_234_567), "1234.567 s"),
  ])
  func aTimeoutErrorNamesItsTimeoutForPeople(timeout: Duration, text: String) {
    let error = TimeoutError(timeout: timeout)
    #expect(error.description == "TimeoutError(timed out after \(text))")
    #expect((error as any Error).localizedDescription == error.description)
  }
}
