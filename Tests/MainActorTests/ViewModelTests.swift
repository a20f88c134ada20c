import Dispatch
import Foundation
import Promises
import TestSupport
import Testing

// A `@MainActor` view model written as an app writes one (Swift 6 language mode, like the whole
// package): its chains assign its properties in their bodies, with no `assumeIsolated`.

/// The model's back end: promises resolved on a global queue, as network code resolves them.
struct NameService: Sendable {
  var names = ["1": "Ada", "2": "Grace"]

  func userID() -> Promise<String> {
    Promise { seal in DispatchQueue.global().async { seal.fulfill("1") } }
  }

  func name(of id: String) -> Promise<String> {
    Promise { seal in
      DispatchQueue.global().async {
        if let name = names[id] { seal.fulfill(name) } else { seal.reject(LookupError.unknown(id)) }
      }
    }
  }

  func cancellableName(of id: String) -> CancellablePromise<String> {
    name(of: id).cancellize()
  }
}

enum LookupError: Error, Equatable {
  case unknown(String)
}

@MainActor
final class ViewModel {
  let service: NameService
  var label = ""
  var error: Error?
  var cleanedUp = 0
  /// Whether each body ran on the main queue, in the order they ran.
  var onMainQueue: [Bool] = []
  /// What the view does when the model changed (the tests resume here).
  var changed: () -> Void = {}

  init(service: NameService = NameService()) {
    self.service = service
  }

  private func record() {
    onMainQueue.append((QueueProbe.mainLabel == "main"))
  }

  /// The common line, on the default queue.
  func load() {
    firstly {
      service.userID()
    }.then { id in
      self.record()
      return self.service.name(of: id)
    }.done {
      self.record()
      self.label = $0
    }.catch {
      self.record()
      self.error = $0
    }.finally {
      self.changed()
    }
  }

  /// The common line with `on: .main`.
  func loadOnMain(id: String) {
    service.name(of: id).then(on: .main) { name in
      self.record()
      return Promise.value(name.uppercased())
    }.done(on: .main) {
      self.record()
      self.label = $0
    }.catch(on: .main) {
      self.record()
      self.error = $0
    }.finally(on: .main) {
      self.changed()
    }
  }

  /// `map`, `compactMap`, `get`, `tap`, `recover`, `ensure`, `ensureThen` on a promise.
  func loadLength(id: String) {
    service.name(of: id).map { name in
      self.record()
      return name.count
    }.compactMap { count in
      self.record()
      return count > 3 ? count : nil
    }.get { _ in
      self.record()
    }.tap { _ in
      self.record()
    }.recover { error -> Promise<Int> in
      self.error = error
      return Promise.value(0)
    }.ensure {
      self.cleanedUp += 1
    }.ensureThen {
      self.cleanedUp += 1
      return Guarantee.value
    }.done {
      self.label = "\($0)"
    }.catch {
      self.error = $0
    }.finally {
      self.changed()
    }
  }

  /// A guarantee's own chain (`map`, `get`, `then`, `done`).
  func loadGuarantee() {
    Guarantee.value("ada").map { name in
      self.record()
      return name.capitalized
    }.get { _ in
      self.record()
    }.then { name in
      self.record()
      return Guarantee.value(name + "!")
    }.done {
      self.record()
      self.label = $0
      self.changed()
    }
  }

  /// A `Void` chain's recoveries: to a promise, and to a guarantee.
  func clear(failing: Bool) {
    let cleared: Promise<Void> = failing ? Promise(error: LookupError.unknown("0")) : Promise.value
    cleared.recover { error in
      self.error = error
    }.done {
      self.label = "cleared"
      self.changed()
    }
  }

  /// A recovery that cannot fail.
  func loadOrDefault(id: String) {
    service.name(of: id).recover { _ in
      self.record()
      return Guarantee.value("nobody")
    }.done {
      self.label = $0
      self.changed()
    }
  }

  /// A cancellable chain (PromiseKit 7 style): the model keeps it to cancel it.
  var pending: CancellableFinalizer?

  func loadCancellable(id: String) {
    pending = service.cancellableName(of: id).then { name in
      self.record()
      return Promise.value(name + "?")
    }.map { name in
      self.record()
      return name.lowercased()
    }.done {
      self.record()
      self.label = $0
    }.catch(policy: .allErrors) {
      self.record()
      self.error = $0
    }.finally {
      self.changed()
    }
  }

  /// A cancellable `then` whose body returns a cancellable chain, and `finally` on a member.
  func loadBoth() {
    service.cancellableName(of: "1").then { first in
      self.record()
      return self.service.cancellableName(of: "2").map { first + " & " + $0 }
    }.done {
      self.label = $0
    }.finally {
      self.changed()
    }
  }

  /// A cancellable `Void` chain's recovery, and `finally` on a promise.
  func loadOrForget(id: String) {
    service.cancellableName(of: id).done { _ in
      self.label = "found"
    }.recover { error in
      self.error = error
    }.promise.finally {
      self.changed()
    }
  }

  /// A cancellable chain with its clean-up steps.
  func loadCancellableWithCleanup(id: String) -> CancellablePromise<Void> {
    let chain = service.cancellableName(of: id).get { _ in
      self.record()
    }.tap { _ in
      self.record()
    }.compactMap { name in
      name.first.map(String.init)
    }.recover { _ in
      Promise.value("-")
    }.ensure {
      self.cleanedUp += 1
    }.ensureThen {
      self.cleanedUp += 1
      return Promise.value.cancellize()
    }.done {
      self.label = $0
    }
    chain.catch { self.error = $0 }.finally { self.changed() }
    return chain
  }
}

@MainActor
@Suite("A @MainActor view model's chains")
struct ViewModelTests {
  /// Runs `start` with a model and waits until the model reports a change.
  func run(_ model: ViewModel, _ start: (ViewModel) -> Void) async {
    await withCheckedContinuation { (changed: CheckedContinuation<Void, Never>) in
      model.changed = { changed.resume() }
      start(model)
    }
  }

  @Test func theCommonLineOnTheDefaultQueue() async {
    let model = ViewModel()
    await run(model) { $0.load() }
    #expect(model.label == "Ada")
    #expect(model.error == nil)
    #expect(model.onMainQueue == [true, true])
  }

  @Test func theCommonLineReportsTheErrorOnTheMainQueue() async {
    let model = ViewModel(service: NameService(names: [:]))
    await run(model) { $0.load() }
    #expect(model.label == "")
    #expect(model.error as? LookupError == .unknown("1"))
    #expect(model.onMainQueue == [true, true])
  }

  @Test func theCommonLineOnMain() async {
    let model = ViewModel()
    await run(model) { $0.loadOnMain(id: "2") }
    #expect(model.label == "GRACE")
    #expect(model.onMainQueue == [true, true])

    let failing = ViewModel()
    await run(failing) { $0.loadOnMain(id: "3") }
    #expect(failing.error as? LookupError == .unknown("3"))
    #expect(failing.onMainQueue == [true])
  }

  @Test func mapCompactMapGetTapRecoverEnsure() async {
    let model = ViewModel()
    await run(model) { $0.loadLength(id: "2") }
    #expect(model.label == "5")
    #expect(model.cleanedUp == 2)
    #expect(model.onMainQueue == [true, true, true, true])

    // "Ada" has 3 letters: compactMap rejects, recover replaces it with 0.
    let short = ViewModel()
    await run(short) { $0.loadLength(id: "1") }
    #expect(short.label == "0")
    #expect(short.error != nil)
    #expect(short.cleanedUp == 2)
  }

  @Test func aGuaranteesOwnChain() async {
    let model = ViewModel()
    await run(model) { $0.loadGuarantee() }
    #expect(model.label == "Ada!")
    #expect(model.onMainQueue == [true, true, true, true])
  }

  @Test func voidRecoveries() async {
    let model = ViewModel()
    await run(model) { $0.clear(failing: true) }
    #expect(model.label == "cleared")
    #expect(model.error as? LookupError == .unknown("0"))

    let fallback = ViewModel(service: NameService(names: [:]))
    await run(fallback) { $0.loadOrDefault(id: "1") }
    #expect(fallback.label == "nobody")
    #expect(fallback.onMainQueue == [true])
  }

  @Test func aCancellableChain() async {
    let model = ViewModel()
    await run(model) { $0.loadCancellable(id: "1") }
    #expect(model.label == "ada?")
    #expect(model.onMainQueue == [true, true, true])
  }

  @Test func aCancellableChainOfCancellableChains() async {
    let model = ViewModel()
    await run(model) { $0.loadBoth() }
    #expect(model.label == "Ada & Grace")
    #expect(model.onMainQueue == [true])

    let forgetful = ViewModel()
    await run(forgetful) { $0.loadOrForget(id: "7") }
    #expect(forgetful.label == "")
    #expect(forgetful.error as? LookupError == .unknown("7"))
  }

  @Test func aCancelledChainReportsTheCancellationOnTheMainQueue() async {
    // The service never answers this one: only the cancel ends the chain.
    let model = ViewModel()
    let (never, seal) = Promise<String>.pending()
    defer { seal.fulfill("too late") }
    await run(model) { model in
      model.pending = never.cancellize().then { name in
        model.record(name)
        return Promise.value(name)
      }.done {
        model.label = $0
      }.catch(policy: .allErrors) {
        model.error = $0
      }.finally {
        model.changed()
      }
      model.pending?.cancel()
    }
    #expect(model.label == "")
    #expect(model.error?.isCancelled == true)
    #expect(model.onMainQueue == [])
  }

  @Test func aCancellableChainsCleanUp() async {
    let model = ViewModel()
    var chain: CancellablePromise<Void>?
    await run(model) { chain = $0.loadCancellableWithCleanup(id: "2") }
    #expect(model.label == "G")
    #expect(model.cleanedUp == 2)
    #expect(model.onMainQueue == [true, true])
    #expect(chain?.isFulfilled == true)
  }
}

extension ViewModel {
  /// Records a body that saw `value` (and where it ran).
  func record(_ value: String) {
    onMainQueue.append((QueueProbe.mainLabel == "main"))
  }
}
