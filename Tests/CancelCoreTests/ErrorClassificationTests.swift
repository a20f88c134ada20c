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
    #expect(error.description.contains("0.25"))
  }
}
