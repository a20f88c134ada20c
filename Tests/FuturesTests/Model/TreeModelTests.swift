import Foundation
import Futures
import PropertyBased
import TestSupport
import Testing

/// One step of a random program on a tree of futures, decoded from small integers.
struct TreeStep: CustomStringConvertible, Sendable {
  let kind: Int
  let a: Int
  let b: Int

  /// The request options `b` encodes: any subset of the four.
  var options: CancellationOptions {
    let all: [CancellationOptions] = [
      .doNotForwardRequest, .forceThisFutureToBeCancelledImmediately,
      .forwardCancelRequestEvenIfThereAreOtherFuturesWaiting, .doNotForwardCancelRequestIfThereAreOtherFuturesWaiting,
    ]
    // Mostly plain requests: the options are the rarer case.
    guard b >= 8 else { return [] }
    return all.indices.reduce(into: []) { set, bit in if (b - 8) & (1 << bit) != 0 { set.insert(all[bit]) } }
  }

  var description: String {
    switch kind {
    case 0, 1, 2: "f\(a).map"
    case 3, 4: "request(f\(a), \(options.rawValue))"
    case 5: "onRequestCancel { \(b % 2 == 0 ? "continue" : "complete(.cancelled)") }"
    case 8: "onRequestCancel { request(f\(a)); \(b % 2 == 0 ? "continue" : "complete(.cancelled)") }"
    case 6: "completeWithSuccess(0)"
    default: "completeWithCancel()"
    }
  }
}

@Suite("Model-based: future trees")
struct TreeModelTests {
  static let programs = PropertyCount.value(default: 300)

  @Test func randomTreesMatchTheModelAfterEveryStep() async {
    await Self.checkRandomPrograms(kinds: 0...7)
  }

  #if os(macOS) || os(Linux) || os(Windows)
    /// With handlers that request a future of the program (their own included) from inside a
    /// request. A regression there recursed until the stack overflowed, so the programs run in a
    /// child process.
    ///
    /// The child is no test (it cannot shrink nor record issues): it draws its own programs and
    /// stops at the first mismatch, whose description it writes to its standard error, shown
    /// here.
    @Test func randomTreesWithReentrantHandlersMatchTheModelAfterEveryStep() async {
      let outcome = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<TreeModelTests.programs {
          let program = (0..<Int.random(in: 1...20, using: &random)).map { _ in
            TreeStep(
              kind: Int.random(in: 0...8, using: &random), a: Int.random(in: 0...9, using: &random),
              b: Int.random(in: 0...23, using: &random))
          }
          if let mismatch = TreeModelTests.firstMismatch(program) {
            FileHandle.standardError.write(Data(mismatch.utf8))
            exit(1)
          }
        }
      }
      if let outcome, outcome.exitStatus != .exitCode(0) {
        Issue.record(Comment(rawValue: String(decoding: outcome.standardErrorContent, as: UTF8.self)))
      }
    }
  #endif

  static func checkRandomPrograms(kinds: ClosedRange<Int>) async {
    let step = zip(Gen.int(in: kinds), Gen.int(in: 0...9), Gen.int(in: 0...23))
      .map { TreeStep(kind: $0.0, a: $0.1, b: $0.2) }
    await propertyCheck(count: Self.programs, input: step.array(of: 1...20)) { program in
      Self.check(program)
    }
  }

  static func check(_ program: [TreeStep]) {
    let mismatch = firstMismatch(program)
    #expect(mismatch == nil, Comment(rawValue: mismatch ?? ""))
  }

  /// Runs `program` on real futures and on the model; describes the first difference, if any.
  static func firstMismatch(_ program: [TreeStep]) -> String? {
    var model = TreeModel()
    let producer = Futures.Promise<Int>()
    var futures: [Future<Int>] = [producer.future]
    var runs: [Counter] = []
    var released: [Counter] = []  // handlers registered on a completed future: never run

    for (index, step) in program.enumerated() {
      let a = step.a % futures.count
      switch step.kind {
      case 0, 1, 2:
        futures.append(futures[a].map(.immediate) { $0 + 1 })
        model.derive(from: a)
      case 3, 4:
        futures[a].getCancelToken().cancel(step.options)
        model.request(a, step.options)
      case 5, 8:
        let counter = Counter()
        let cancels = step.b % 2 == 1
        // A re-entrant handler requests a future of the program from inside the request.
        let target = step.kind == 8 ? futures[a] : nil
        producer.onRequestCancel(.immediate) { _ in
          counter.increment()
          target?.getCancelToken().cancel()
          return cancels ? .complete(.cancelled) : .continue
        }
        let before = model.handlers.count
        model.addHandler(cancels ? .cancel : .continue, requests: step.kind == 8 ? a : nil)
        if model.handlers.count > before { runs.append(counter) } else { released.append(counter) }
      case 6:
        producer.completeWithSuccess(0)
        model.complete(.success(0))
      default:
        producer.completeWithCancel()
        model.complete(.cancelled)
      }
      if let mismatch = compare(model, futures, runs, after: "step \(index): \(step); program \(program)") {
        return mismatch
      }
      if !released.allSatisfy({ $0.value == 0 }) {
        return "a handler registered after completion ran; program \(program)"
      }
    }
    return nil
  }

  /// Describes the first difference between the model and the futures, if any.
  static func compare(_ model: TreeModel, _ futures: [Future<Int>], _ runs: [Counter], after context: String)
    -> String?
  {
    for (index, future) in futures.enumerated() {
      switch model.nodes[index].state {
      case .pending:
        if future.result != nil { return "f\(index) should be pending after \(context)" }
      case .success(let value):
        if future.value != value { return "f\(index) should succeed with \(value) after \(context)" }
      case .cancelled:
        if future.result?.isCancelled != true { return "f\(index) should be cancelled after \(context)" }
      }
    }
    let counts = runs.map(\.value)
    if counts != model.handlerRuns {
      return "request handler runs \(counts), the model's \(model.handlerRuns), after \(context)"
    }
    return nil
  }
}
