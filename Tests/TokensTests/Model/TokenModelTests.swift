import PropertyBased
import TestSupport
import Testing
import Tokens

/// One step of a random program of requests and derived tokens, decoded from small integers.
struct TokenStep: CustomStringConvertible, Sendable {
  let kind: Int
  let a: Int
  let b: Int

  var description: String {
    switch kind {
    case 0: "cancel(r\(a))"
    case 1: "release(r\(a))"
    case 2: "close(r\(a))"
    case 3: "t\(a) || t\(b)"
    case 4: "t\(a) && t\(b)"
    case 5: "t\(a).map { \(b % 2 == 0) }"
    case 6: "t\(a).flatMap { t\(b) }"
    case 7: "CancellationRequest(linkedTo: t\(a), t\(b))"
    default: "CancellationRequest()"
    }
  }
}

/// The reasons the token programs cancel with.
struct StepReason: Error {
  let step: Int
}

@Suite("Model-based: tokens and their combinators")
struct TokenModelTests {
  static let programs = PropertyCount.value(default: 300)

  @Test func randomProgramsMatchTheModelAfterEveryStepAndAllComplete() async {
    let step = zip(Gen.int(in: 0...8), Gen.int(in: 0...9), Gen.int(in: 0...9))
      .map { TokenStep(kind: $0.0, a: $0.1, b: $0.2) }
    await propertyCheck(count: Self.programs, input: step.array(of: 1...30)) { program in
      Self.check(program)
    }
  }

  static func check(_ program: [TokenStep]) {
    var model = TokenModel()
    var requests: [CancellationRequest?] = []
    var requestTokens: [Int] = []  // the token index of each request
    var tokens: [CancellationToken] = []

    func addRequest(linkedTo parents: [Int], at step: Int) {
      let request = CancellationRequest(linkedTo: parents.map { tokens[$0] })
      requests.append(request)
      tokens.append(request.token)
      requestTokens.append(model.addRequest(linkedTo: parents, at: step))
    }
    for _ in 0..<2 { addRequest(linkedTo: [], at: -1) }

    for (index, step) in program.enumerated() {
      let r = step.a % requests.count
      let a = step.a % tokens.count
      let b = step.b % tokens.count
      switch step.kind {
      case 0:
        guard let request = requests[r] else { break }
        let real = request.cancel(reason: StepReason(step: index))
        #expect(real == model.cancel(request: r, at: index), "cancel's result at step \(index): \(step)")
      case 1:
        guard requests[r] != nil else { break }
        requests[r] = nil  // the last reference: the request completes without cancellation
        model.close(request: r, at: index)
      case 2:
        guard let request = requests[r] else { break }
        request.close()
        model.close(request: r, at: index)
      case 3:
        tokens.append(tokens[a] || tokens[b])
        _ = model.add(.or(a, b, made: index))
      case 4:
        tokens.append(tokens[a] && tokens[b])
        _ = model.add(.and(a, b, made: index))
      case 5:
        let cancels = step.b % 2 == 0
        tokens.append(tokens[a].map { cancels })
        _ = model.add(.map(a, cancels: cancels, made: index))
      case 6:
        let then = tokens[b]
        tokens.append(tokens[a].flatMap { then })
        _ = model.add(.flatMap(a, then: b, made: index))
      case 7:
        addRequest(linkedTo: a == b ? [a] : [a, b], at: index)
      default:
        addRequest(linkedTo: [], at: index)
      }
      compare(model, tokens, after: "step \(index): \(step)")
    }

    // Every derived token completes once everything it depends on has.
    let end = program.count
    for r in requests.indices where requests[r] != nil {
      requests[r] = nil
      model.close(request: r, at: end)
    }
    compare(model, tokens, after: "releasing every request")
    for (index, token) in tokens.enumerated() {
      #expect(token.isCompleted, "t\(index) never completed; program \(program)")
      #expect(token.signal.storage.registrationCount == 0, "t\(index) keeps registrations; program \(program)")
    }
  }

  static func compare(_ model: TokenModel, _ tokens: [CancellationToken], after context: String) {
    for (index, token) in tokens.enumerated() {
      switch model.outcome(index) {
      case .pending:
        #expect(!token.isCompleted, "t\(index) should be pending after \(context)")
      case .cancelled(let reasons, _):
        #expect(token.isCancelled, "t\(index) should be cancelled after \(context)")
        let step = (token.reason as? StepReason)?.step
        #expect(
          step.map(reasons.contains) == true,
          "t\(index)'s reason \(String(describing: step)) not in \(reasons) after \(context)")
      case .closed:
        #expect(
          token.isCompleted && !token.isCancelled, "t\(index) should be completed, not cancelled, after \(context)")
      }
    }
  }
}
