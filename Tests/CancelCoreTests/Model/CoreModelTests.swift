import CancelCore
import PropertyBased
import TestSupport
import Testing

/// One step of a random program against a few sources, decoded from small integers so the
/// property library can shrink a failing program (fewer steps, smaller numbers).
struct CoreStep: CustomStringConvertible, Sendable {
  let kind: Int
  let a: Int
  let b: Int
  let c: Int

  var description: String {
    switch kind {
    case 0: "addSource"
    case 1: "cancel(s\(a))"
    case 2: "close(s\(a))"
    case 3: "release(s\(a))"
    case 4: "register(\(["onCancel", "onCancelWithReason", "onComplete"][b % 3]), s\(a), cancels: \(c))"
    case 5: "unregister(#\(a * 7 + b))"
    case 6: "link(s\(a) to s\(b))"
    case 7: "deadline(s\(a), after: \(c + 1))"
    default: "advance(by: \(b))"
    }
  }
}

/// The real sources a program runs against, reachable from handlers (which cancel other sources).
//
// Safety of `@unchecked Sendable`: the sequential property test touches it from its one thread
// only (handlers run synchronously on the thread that cancels, which is that thread).
final class SourceTable: @unchecked Sendable {
  var sources: [CancelSource?] = []
  var signals: [CancelSignal] = []
}

/// What the real handlers record, in the model's terms.
typealias RunLog = Recorder<CoreModel.Run>

@Suite("Model-based: core sources")
struct CoreModelTests {
  /// How many random programs each property runs: `PROPERTY_COUNT` or a bounded default.
  static let programs = PropertyCount.value(default: 200)

  @Test func randomProgramsMatchTheModelAfterEveryStep() async {
    let step = zip(Gen.int(in: 0...8), Gen.int(in: 0...5), Gen.int(in: 0...5), Gen.int(in: 0...6))
      .map { CoreStep(kind: $0.0, a: $0.1, b: $0.2, c: $0.3) }
    await propertyCheck(count: Self.programs, input: step.array(of: 1...40)) { program in
      Self.check(program)
    }
  }

  /// Runs `program` on real sources and on the model, comparing after every step.
  static func check(_ program: [CoreStep]) {
    var model = CoreModel()
    let table = SourceTable()
    let log = RunLog()
    let time = ManualDeadlineScheduler()
    var released: Set<Int> = []
    var registrations: [Int: (source: Int, handle: CancelRegistration)] = [:]

    func addSource() {
      let source = CancelSource()
      table.sources.append(source)
      table.signals.append(source.signal)
      _ = model.addSource()
    }
    for _ in 0..<3 { addSource() }

    for (index, step) in program.enumerated() {
      let count = table.signals.count
      let a = step.a % count
      let b = step.b % count
      switch step.kind {
      case 0:
        if count < 6 { addSource() }
      case 1:
        guard !released.contains(a), let source = table.sources[a] else { break }
        let real = source.cancel(reason: ModelReason(id: index))
        let expected = model.cancel(a, reason: index)
        #expect(real == expected, "cancel's result at step \(index): \(step)")
      case 2:
        guard !released.contains(a), let source = table.sources[a] else { break }
        #expect(source.close() == model.close(a), "close's result at step \(index): \(step)")
      case 3:
        guard !released.contains(a) else { break }
        released.insert(a)
        // Taken out of the table first: the source closes itself when its last reference goes, and
        // its handlers may read the table.
        var last = table.sources[a]
        table.sources[a] = nil
        #expect(last != nil)
        last = nil
        _ = model.close(a)
      case 4:
        let kind: CoreModel.HandlerKind = [.onCancel, .onCancelWithReason, .onComplete][step.b % 3]
        let target = step.c < count ? step.c : nil
        let (id, waits) = model.register(kind, on: a, cancels: target)
        let handle = register(kind, id: id, on: table.signals[a], cancels: target, table: table, log: log)
        #expect(handle.isActive == waits, "registration at step \(index): \(step)")
        registrations[id] = (a, handle)
      case 5:
        guard !model.handlers.isEmpty else { break }
        let id = (step.a * 7 + step.b) % model.handlers.count
        guard let (source, handle) = registrations[id] else { break }
        #expect(handle.unregister() == model.unregister(id, on: source), "unregister at step \(index): \(step)")
      case 6:
        guard !released.contains(a), let child = table.sources[a] else { break }
        let real = child.link(to: table.signals[b])
        #expect(real == model.link(child: a, to: b), "link's result at step \(index): \(step)")
      case 7:
        guard !released.contains(a), let source = table.sources[a] else { break }
        source.cancel(after: .seconds(step.c + 1), scheduler: time)
        model.setDeadline(a, after: step.c + 1)
      default:
        time.advance(by: .seconds(step.b))
        model.advance(by: step.b)
      }
      compare(model, table.signals, log, time, after: index, step)
    }
  }

  static func register(
    _ kind: CoreModel.HandlerKind, id: Int, on signal: CancelSignal, cancels target: Int?,
    table: SourceTable, log: RunLog
  ) -> CancelRegistration {
    let act: @Sendable () -> Void = {
      guard let target, let source = table.sources[target] else { return }
      source.cancel(reason: ModelReason(id: 1000 + id))
    }
    switch kind {
    case .onCancel:
      return signal.onCancel {
        log.record(.init(handler: id, outcome: nil))
        act()
      }
    case .onCancelWithReason:
      return signal.onCancel { reason in
        log.record(.init(handler: id, outcome: reasonID(reason)))
        act()
      }
    case .onComplete:
      return signal.onComplete { cancelled in
        log.record(.init(handler: id, outcome: cancelled ? 1 : 0))
        act()
      }
    }
  }

  static func reasonID(_ reason: (any Error)?) -> Int? {
    switch reason {
    case let reason as ModelReason: reason.id
    case is TimeoutError: CoreModel.timeoutReason
    default: nil
    }
  }

  static func compare(
    _ model: CoreModel, _ signals: [CancelSignal], _ log: RunLog, _ time: ManualDeadlineScheduler,
    after index: Int, _ step: CoreStep
  ) {
    let context = "after step \(index): \(step)"
    for (source, signal) in signals.enumerated() {
      switch model.states[source] {
      case .active:
        #expect(!signal.isCompleted && !signal.isCancelled && signal.reason == nil, "s\(source) active \(context)")
      case .cancelled(let reason):
        #expect(signal.isCancelled && signal.isCompleted, "s\(source) cancelled \(context)")
        #expect(reasonID(signal.reason) == reason, "s\(source)'s reason \(context)")
      case .closed:
        #expect(signal.isCompleted && !signal.isCancelled && signal.reason == nil, "s\(source) closed \(context)")
      }
      #expect(
        signal.storage.registrationCount == model.registrationCount(source), "s\(source)'s registrations \(context)")
    }
    #expect(log.values == model.log, "handler runs \(context)")
    #expect(time.pendingCount == model.deadlines.compactMap { $0 }.count, "pending deadlines \(context)")
  }
}
