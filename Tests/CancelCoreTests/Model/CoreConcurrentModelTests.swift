import CancelCore
import PropertyBased
import TestSupport
import Testing

/// Two random programs run at the same moment on two threads against the same sources. No model
/// can say which interleaving happened, so the check is of what every interleaving must give: each
/// handler ran exactly once or never, in agreement with how its source ended and with what
/// `unregister()` answered; a cancelled source's reason is its own or a parent's; nothing waits on
/// an ended source.
@Suite("Model-based: core sources from two threads")
struct CoreConcurrentModelTests {
  /// A twenty-fifth of the sequential tests' count: each program here runs hundreds of races.
  static let programs = max(PropertyCount.value(default: 1_000) / 25, 1)
  static let racesPerProgram = max(200 / Stress.divisor, 20)

  @Test func racingProgramsKeepEveryExactlyOnceRule() async {
    let step = zip(Gen.int(in: 0...4), Gen.int(in: 0...3), Gen.int(in: 0...3))
      .map { CoreStep(kind: $0.0, a: $0.1, b: $0.2, c: 0) }
    await propertyCheck(count: Self.programs, input: step.array(of: 1...12), step.array(of: 1...12)) {
      first, second in
      race(
        iterations: Self.racesPerProgram,
        setup: { RacedSources(count: 4) },
        { $0.run(first, thread: 0) },
        { $0.run(second, thread: 1) },
        check: { $0.check(programs: [first, second]) })
    }
  }
}

/// The shared sources of one race and what each thread saw.
//
// Safety of `@unchecked Sendable`: `sources` and `signals` never change after `init`; each thread
// writes only its own `seenBy…` property, and `check` reads them only after `race` has waited for
// both threads (a releasing store and acquiring load of its counters order these accesses).
final class RacedSources: @unchecked Sendable {
  /// One registration a thread made.
  struct Registration {
    let source: Int
    let kind: CoreModel.HandlerKind
    let handle: CancelRegistration
    /// What the handler was told each time it ran.
    let runs: Recorder<Int?>
    var removed = false
  }

  /// What one thread did and was told.
  struct Seen {
    var registrations: [Registration] = []
    /// Reasons this thread cancelled each source with (whether or not it won).
    var cancelReasons: [Int: [Int]] = [:]
    /// Parents each source was linked to (whatever `link` answered).
    var parents: [Int: [Int]] = [:]
  }

  let sources: [CancelSource]
  let signals: [CancelSignal]
  /// What each thread saw: two stored properties, not an array, so that the two threads' writes
  /// are separate accesses.
  var seenByFirst = Seen()
  var seenBySecond = Seen()
  var seen: [Seen] { [seenByFirst, seenBySecond] }

  init(count: Int) {
    sources = (0..<count).map { _ in CancelSource() }
    signals = sources.map(\.signal)
  }

  /// Steps: 0 cancel, 1 close, 2 register, 3 unregister (one of this thread's), 4 link.
  func run(_ program: [CoreStep], thread: Int) {
    var mine = Seen()
    for (index, step) in program.enumerated() {
      let a = step.a % sources.count
      let b = step.b % sources.count
      switch step.kind {
      case 0:
        let reason = thread * 100 + index
        sources[a].cancel(reason: ModelReason(id: reason))
        mine.cancelReasons[a, default: []].append(reason)
      case 1:
        sources[a].close()
      case 2:
        let kind: CoreModel.HandlerKind = [.onCancel, .onCancelWithReason, .onComplete][step.b % 3]
        let runs = Recorder<Int?>()
        let handle: CancelRegistration
        switch kind {
        case .onCancel: handle = signals[a].onCancel { runs.record(nil) }
        case .onCancelWithReason: handle = signals[a].onCancel { runs.record(CoreModelTests.reasonID($0)) }
        case .onComplete: handle = signals[a].onComplete { runs.record($0 ? 1 : 0) }
        }
        mine.registrations.append(Registration(source: a, kind: kind, handle: handle, runs: runs))
      case 3:
        guard !mine.registrations.isEmpty else { break }
        let index = (step.a * 4 + step.b) % mine.registrations.count
        if mine.registrations[index].handle.unregister() { mine.registrations[index].removed = true }
      default:
        sources[a].link(to: signals[b])
        mine.parents[a, default: []].append(b)
      }
    }
    if thread == 0 { seenByFirst = mine } else { seenBySecond = mine }
  }

  func check(programs: [[CoreStep]]) {
    let context = "programs \(programs)"
    for (source, signal) in signals.enumerated() {
      if signal.isCompleted {
        #expect(signal.storage.registrationCount == 0, "s\(source) ended with registrations; \(context)")
      }
      guard let reason = CoreModelTests.reasonID(signal.reason) else { continue }
      let own = seen.flatMap { $0.cancelReasons[source] ?? [] }
      let parents = seen.flatMap { $0.parents[source] ?? [] }
      let fromParents = parents.compactMap { CoreModelTests.reasonID(signals[$0].reason) }
      #expect(own.contains(reason) || fromParents.contains(reason), "s\(source)'s reason \(reason); \(context)")
    }
    for registration in seen.flatMap(\.registrations) {
      let runs = registration.runs.values
      let signal = signals[registration.source]
      let context = "handler \(registration.kind) on s\(registration.source); \(context)"
      #expect(runs.count <= 1, "ran \(runs.count) times: \(context)")
      if registration.removed {
        #expect(runs.isEmpty, "ran although unregistered: \(context)")
        continue
      }
      switch (registration.kind, signal.phase) {
      case (_, .active): #expect(runs.isEmpty, "ran on an active source: \(context)")
      case (.onComplete, .cancelled): #expect(runs == [1], "\(context)")
      case (.onComplete, .closed): #expect(runs == [0], "\(context)")
      case (.onCancel, .cancelled): #expect(runs == [nil], "\(context)")
      case (.onCancelWithReason, .cancelled(let reason)):
        #expect(runs == [CoreModelTests.reasonID(reason)], "\(context)")
      case (_, .closed): #expect(runs.isEmpty, "a cancel handler ran on a closed source: \(context)")
      }
    }
  }
}
