// Linux stand-ins, used by scripts/peer-fk.sh, for what FutureKit's tests take from Apple platforms:
// the Objective-C BlockBasedTestCase (BlockBasedTestCase.h/.m), NSException and
// arc4random_uniform. Ours, not FutureKit's, and not counted among the peer's files.
//
// On Apple platforms the .m overrides +testInvocations with +myBlockBasedTests, and each
// +_addTestWithName:block: call adds one instance method (class_addMethod) that XCTest then runs
// as a test of its own, on a fresh instance. Swift on Linux cannot add methods at run time, so:
// `_addTest(withName:block:)` collects the blocks (renaming "." to "_" and refusing duplicates,
// as the .m does), and the one discovered method `testBlockBasedTests` runs them one after another
// on this instance, each between setUp() and tearDown(), printing a marker line per generated test
// and prefixing every failure recorded while it runs with its name. The blocks are FutureKit's,
// unchanged. PEER_FK_FROM=i starts at the i-th generated test (peer-fk resumes after a crash);
// PEER_FK_ONLY=substring runs only the generated tests whose name contains it. A generated test
// still running after PEER_FK_HANG seconds (default 60; FutureKit's waits are 5 s) is reported as
// hung and the process exits, so that peer-fk resumes after it.
//
// The .m's own testExample/testPerformanceExample are not declared here: they are not in the .h,
// so Swift never saw them (PromiseTests declares its own without `override`).
import Foundation
import XCTest

/// BlockBasedTestCase.h: `typedef NSObject BlockBasedTest;`
typealias BlockBasedTest = NSObject

/// NSException does not exist in Foundation on Linux (there are no Objective-C exceptions). The
/// tests only build values of it and compare them (FutureKitError.exceptionCaught), so this keeps
/// the initializer they call and identity equality (NSObject.isEqual), as on Apple platforms.
class NSException: NSObject {
  let name: NSExceptionName
  let reason: String?
  let userInfo: [AnyHashable: Any]?
  init(name: NSExceptionName, reason: String?, userInfo: [AnyHashable: Any]?) {
    self.name = name
    self.reason = reason
    self.userInfo = userInfo
  }
  var callStackReturnAddresses: [NSNumber] { [] }
  var callStackSymbols: [String] { [] }
  override var description: String { "\(name.rawValue): \(reason ?? "")" }
}

/// BasicTests calls arc4random_uniform, which Glibc has only from 2.36 on (Ubuntu 22.04 has 2.35);
/// this one, in the test module, shadows Glibc's where both exist.
func arc4random_uniform(_ upperBound: UInt32) -> UInt32 { UInt32.random(in: 0..<upperBound) }

class BlockBasedTestCase: XCTestCase {
  private static var collected: [(name: String, block: (BlockBasedTestCase?) -> Void)] = []
  private var currentGenerated: String?
  private var currentFailures = 0

  class func _addTest(withName name: String, block: @escaping (BlockBasedTestCase?) -> Void) -> BlockBasedTest! {
    let n = name.replacingOccurrences(of: ".", with: "_")
    if collected.contains(where: { $0.name == n }) {
      fatalError("couldn't add test with name \(n).  Make sure test names are unique!")  // the .m's NSAssert
    }
    collected.append((n, block))
    return NSObject()
  }

  // overload me!
  class func myBlockBasedTests() -> [Any] { [] }

  override func recordFailure(withDescription description: String, inFile filePath: String, atLine lineNumber: Int, expected: Bool) {
    if let name = currentGenerated {
      currentFailures += 1
      print("peer-fk: failure in \(name): \(description) (\((filePath as NSString).lastPathComponent):\(lineNumber))")
      super.recordFailure(withDescription: "[\(name)] \(description)", inFile: filePath, atLine: lineNumber, expected: expected)
    } else {
      super.recordFailure(withDescription: description, inFile: filePath, atLine: lineNumber, expected: expected)
    }
  }

  func testBlockBasedTests() {
    let cls = type(of: self)
    BlockBasedTestCase.collected = []
    _ = cls.myBlockBasedTests()
    let tests = BlockBasedTestCase.collected
    BlockBasedTestCase.collected = []
    let env = ProcessInfo.processInfo.environment
    let from = Int(env["PEER_FK_FROM"] ?? "") ?? 0
    let only = env["PEER_FK_ONLY"] ?? ""
    print("peer-fk: \(cls) generated \(tests.count) tests")
    let hangAfter = Double(env["PEER_FK_HANG"] ?? "") ?? 60
    let watched = NSLock()
    var running: (index: Int, name: String, since: Date)?
    let watchdog = Thread {
      while true {
        Thread.sleep(forTimeInterval: 1)
        watched.lock(); let r = running; watched.unlock()
        if let r, -r.since.timeIntervalSinceNow > hangAfter {
          print("peer-fk: hung \(r.index) \(r.name) after \(Int(hangAfter))s"); fflush(stdout)
          exit(3)
        }
      }
    }
    watchdog.start()
    for (i, t) in tests.enumerated() where i >= from && (only.isEmpty || t.name.contains(only)) {
      print("peer-fk: start \(i) \(t.name)"); fflush(stdout)
      let started = Date()
      watched.lock(); running = (i, t.name, started); watched.unlock()
      currentGenerated = t.name
      currentFailures = 0
      setUp()
      t.block(self)
      tearDown()
      watched.lock(); running = nil; watched.unlock()
      let failures = currentFailures
      currentGenerated = nil
      print("peer-fk: end \(i) \(t.name) \(failures == 0 ? "passed" : "failed") \(failures) \(String(format: "%.3f", -started.timeIntervalSinceNow))s")
      fflush(stdout)
    }
    print("peer-fk: done \(cls)"); fflush(stdout)
  }
}
