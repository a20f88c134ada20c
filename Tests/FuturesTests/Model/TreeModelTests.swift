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
    case 6: "completeWithSuccess(0)"
    default: "completeWithCancel()"
    }
  }
}

@Suite("Model-based: future trees")
struct TreeModelTests {
  static let programs = PropertyCount.value(default: 300)

  @Test func randomTreesMatchTheModelAfterEveryStep() async {
    let step = zip(Gen.int(in: 0...7), Gen.int(in: 0...9), Gen.int(in: 0...23))
      .map { TreeStep(kind: $0.0, a: $0.1, b: $0.2) }
    await propertyCheck(count: Self.programs, input: step.array(of: 1...20)) { program in
      Self.check(program)
    }
  }

  static func check(_ program: [TreeStep]) {
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
      case 5:
        let counter = Counter()
        let cancels = step.b % 2 == 1
        producer.onRequestCancel(.immediate) { _ in
          counter.increment()
          return cancels ? .complete(.cancelled) : .continue
        }
        let before = model.handlers.count
        model.addHandler(cancels ? .cancel : .continue)
        if model.handlers.count > before { runs.append(counter) } else { released.append(counter) }
      case 6:
        producer.completeWithSuccess(0)
        model.complete(.success(0))
      default:
        producer.completeWithCancel()
        model.complete(.cancelled)
      }
      compare(model, futures, runs, after: "step \(index): \(step); program \(program)")
      #expect(released.allSatisfy { $0.value == 0 }, "a handler registered after completion ran; program \(program)")
    }
  }

  static func compare(_ model: TreeModel, _ futures: [Future<Int>], _ runs: [Counter], after context: String) {
    for (index, future) in futures.enumerated() {
      switch model.nodes[index].state {
      case .pending:
        #expect(future.result == nil, "f\(index) should be pending after \(context)")
      case .success(let value):
        #expect(future.value == value, "f\(index) should succeed with \(value) after \(context)")
      case .cancelled:
        #expect(future.result?.isCancelled == true, "f\(index) should be cancelled after \(context)")
      }
    }
    #expect(runs.map(\.value) == model.handlerRuns, "request handler runs after \(context)")
  }
}
