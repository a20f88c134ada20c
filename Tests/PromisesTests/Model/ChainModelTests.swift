import Promises
import PropertyBased
import TestSupport
import Testing

/// One step of a random program on a cancellable chain, decoded from small integers.
struct ChainStep: CustomStringConvertible, Sendable {
  let kind: Int
  let a: Int

  var description: String {
    switch kind {
    case 0: "map"
    case 1: "ensure"
    case 2: "recover"
    case 3: "then { gate\(a % 3) }"
    case 4: "fulfil root"
    case 5: "reject root"
    case 6: "cancel(m\(a))"
    case 7: "open gate\(a % 3)"
    case 8: "then { cgate\(a % 3) }"
    default: "open cgate\(a % 3)"
    }
  }
}

/// The failure a program rejects the root with.
struct ChainFailure: Error {
  let id: Int
}

@Suite("Model-based: cancellable promise chains")
struct ChainModelTests {
  static let programs = PropertyCount.value(default: 300)

  @Test func randomChainsMatchTheModelAfterEveryStep() async {
    let step = zip(Gen.int(in: 0...9), Gen.int(in: 0...11)).map { ChainStep(kind: $0.0, a: $0.1) }
    await propertyCheck(count: Self.programs, input: step.array(of: 1...25)) { program in
      Self.check(program)
    }
  }

  static func check(_ program: [ChainStep]) {
    var model = ChainModel()
    let (root, resolver) = CancellablePromise<Int>.pending()
    var members: [CancellablePromise<Int>] = [root]
    var runs: [Counter] = [Counter()]
    let gates = (0..<3).map { _ in Promise<Int>.pending() }
    let cancellableGates = (0..<3).map { _ in CancellablePromise<Int>.pending() }

    for (index, step) in program.enumerated() {
      let last = members[members.count - 1]
      let counter = Counter()
      switch step.kind {
      case 0:
        members.append(
          last.map(on: nil) {
            counter.increment(); return $0 + 1
          })
        model.add(.map)
      case 1:
        members.append(last.ensure(on: nil) { counter.increment() })
        model.add(.ensure)
      case 2:
        members.append(
          last.recover(on: nil, policy: .allErrors) { _ in
            counter.increment()
            return Promise.value(ChainModel.recovered)
          })
        model.add(.recover)
      case 3:
        let gate = gates[step.a % 3].promise
        members.append(
          last.then(on: nil) { _ in
            counter.increment(); return gate
          })
        model.add(.gate(step.a % 3))
      case 4:
        resolver.fulfill(0)
        model.resolveRoot(.fulfilled(0))
      case 5:
        resolver.reject(ChainFailure(id: index))
        model.resolveRoot(.failed(index))
      case 6:
        let member = step.a % members.count
        members[member].cancel()
        model.cancel(member: member)
      case 7:
        let gate = step.a % 3
        gates[gate].resolver.fulfill(ChainModel.gateValue(gate))
        model.open(gate: gate)
      case 8:
        let gate = cancellableGates[step.a % 3].promise
        members.append(
          last.then(on: nil) { _ in
            counter.increment(); return gate
          })
        model.add(.cancellableGate(step.a % 3))
      default:
        let gate = step.a % 3
        cancellableGates[gate].resolver.fulfill(ChainModel.gateValue(gate))
        model.open(cancellableGate: gate)
      }
      if members.count > runs.count { runs.append(counter) }
      let context = "step \(index): \(step); program \(program)"
      compare(model, members, runs, after: context)
      for (gate, expected) in model.cancellableGates.enumerated() {
        compare(cancellableGates[gate].promise, expected, "cgate\(gate)", after: context)
      }
    }
    // Settle what the program left pending: a pending promise dropped unsettled is logged.
    resolver.fulfill(0)
    for gate in gates { gate.resolver.fulfill(0) }
    for gate in cancellableGates { gate.resolver.fulfill(0) }
  }

  static func compare(
    _ model: ChainModel, _ members: [CancellablePromise<Int>], _ runs: [Counter], after context: String
  ) {
    for (index, member) in members.enumerated() {
      let expected = model.members[index]
      compare(member, expected.state, "m\(index) (\(expected.kind))", after: context)
      #expect(
        runs[index].value == expected.bodyRuns,
        "m\(index) (\(expected.kind))'s body ran \(runs[index].value) times, not \(expected.bodyRuns), after \(context)"
      )
      #expect(member.cancelAttempted == model.cancelAttempted(index), "m\(index)'s cancelAttempted after \(context)")
    }
  }

  static func compare(
    _ member: CancellablePromise<Int>, _ expected: ChainModel.State, _ name: String, after context: String
  ) {
    switch expected {
    case .pending:
      #expect(member.isPending, "\(name) should be pending after \(context)")
    case .fulfilled(let value):
      #expect(member.value == value, "\(name) should be fulfilled with \(value) after \(context)")
    case .cancelled:
      #expect(member.error?.isCancellation == true, "\(name) should be cancelled after \(context)")
    case .failed(let id):
      #expect((member.error as? ChainFailure)?.id == id, "\(name) should fail with \(id) after \(context)")
    }
  }
}
