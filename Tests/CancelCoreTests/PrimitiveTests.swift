import CancelCore
import TestSupport
import Testing

@Suite("Countdown: exactly one arrival decides")
struct CountdownTests {
  @Test func theLastCountedArrivalDecidesAndNothingAfterIt() {
    var machine = CountdownStateMachine(count: 3)
    let answers = [machine.arrive(counted: true), machine.arrive(counted: true), machine.arrive(counted: true)]
    #expect(answers == [false, false, true], "only the arrival that completes the count decides")
    let late = machine.arrive(counted: false)
    #expect(!late, "an arrival after the decision decides nothing")
  }

  @Test func anArrivalNotCountedDecidesAloneOnce() {
    var machine = CountdownStateMachine(count: 3)
    let answers = [
      machine.arrive(counted: true), machine.arrive(counted: false), machine.arrive(counted: false),
      machine.arrive(counted: true),
    ]
    #expect(answers == [false, true, false, false], "an arrival not counted decides at once, and only once")
  }

  @Test func arrivalsOnTwoThreadsAtOnceDecideExactlyOnce() {
    race(
      iterations: Stress.iterations(20_000), setup: { (countdown: Countdown(count: 2), decisions: Counter()) },
      { state in if state.countdown.arrive() { state.decisions.increment() } },
      { state in if state.countdown.arrive() { state.decisions.increment() } },
      check: { state in
        #expect(state.decisions.value == 1, "both arrived: exactly one decides")
        #expect(!state.countdown.arrive(counted: false))
      })
  }
}

@Suite("CountdownPair: first and all, each decided once")
struct CountdownPairTests {
  @Test func anUncountedArrivalDecidesFirstAndTheLastArrivalDecidesAll() {
    let pair = CountdownPair(count: 3, first: true, all: true, context: "context")
    let answers = [pair.arrive(counted: true), pair.arrive(counted: false), pair.arrive(counted: true)]
    #expect(answers.map(\.first) == [false, true, false], "the first uncounted arrival decides first, once")
    #expect(answers.map(\.all) == [false, false, true], "the last arrival decides all")
    #expect(pair.context == "context")
  }

  @Test func aCountdownNotAskedForIsNeverDecided() {
    let pair = CountdownPair(count: 1, first: false, all: true, context: ())
    let answer = pair.arrive(counted: false)
    #expect(!answer.first && answer.all)
  }
}

@Suite("Gathering: every value, in input order, handed over once")
struct GatheringTests {
  @Test func theCompletingArrivalGetsEveryValueInInputOrder() {
    let gathering = Gathering<String>(count: 3)
    #expect(gathering.arrive(2, "c") == nil)
    #expect(gathering.arrive(0, "a") == nil)
    #expect(gathering.arrive(1, "b") == ["a", "b", "c"])
  }

  @Test func theMachineKeepsNoValueOnceItHandedThemOver() {
    final class Value: Sendable {}
    var machine = GatheringStateMachine<Value>(count: 1)
    weak var handedOver: Value?
    do {
      let value = Value()
      handedOver = value
      let complete = machine.arrive(0, value)
      #expect(complete?.first?.map { $0 === value } == true)
    }
    #expect(handedOver == nil, "the values belong to the completing arrival alone")
  }

  @Test func arrivalsOnTwoThreadsAtOnceHandOverBothValuesOnce() {
    race(
      iterations: Stress.iterations(20_000), setup: { (gathering: Gathering<Int>(count: 2), handed: Counter()) },
      { state in if state.gathering.arrive(0, 10) == [10, 20] { state.handed.increment() } },
      { state in if state.gathering.arrive(1, 20) == [10, 20] { state.handed.increment() } },
      check: { state in #expect(state.handed.value == 1, "both arrived: the values are handed over once") })
  }
}

@Suite("SerialDrain: one run at a time, in event order")
struct SerialDrainTests {
  @Test func theFirstSenderDrainsEveryEventLeftWhileItRunsInOrder() {
    var machine = SerialDrainStateMachine<Int>()
    let first = machine.request(1)
    let second = machine.request(2)
    let third = machine.request(3)
    #expect(first == 1, "the first sender becomes the drainer and runs its own event")
    #expect(second == nil && third == nil, "events sent during a run are left for the drainer")
    let runs = [machine.finishedRun(), machine.finishedRun(), machine.finishedRun()]
    #expect(runs == [2, 3, nil], "the drainer runs them oldest first, then stops")
    let again = machine.request(4)
    let stop = machine.finishedRun()
    #expect(again == 4 && stop == nil, "the next sender becomes the drainer again")
  }

  @Test func theMachineKeepsNoEventItHandedOut() {
    final class Payload: Sendable {}
    var machine = SerialDrainStateMachine<Payload>()
    weak var handedOut: Payload?
    _ = machine.request(Payload())
    do {
      let payload = Payload()
      handedOut = payload
      _ = machine.request(payload)
      _ = machine.finishedRun()
    }
    #expect(handedOut == nil, "an event belongs to the drainer once handed out")
    let last = machine.finishedRun()
    #expect(last == nil)
  }

  /// Logs the events it runs and, on event 0, sends two more from inside the run.
  struct Logging: SerialDrainWork {
    typealias Event = Int
    let log: Recorder<Int>

    func run(_ event: Int, in drain: SerialDrain<Logging>) {
      log.record(event)
      if event == 0 {
        drain.send(1)  // left for this drainer: runs after this run returns
        drain.send(2)
        log.record(-1)  // the two sends returned before running
      }
    }
  }

  @Test func eventsSentInsideARunRunAfterItInOrder() {
    let log = Recorder<Int>()
    let drain = SerialDrain(Logging(log: log))
    drain.send(0)
    drain.send(3)
    #expect(log.values == [0, -1, 1, 2, 3])
  }

  /// Sums the events in a variable of its own, with no lock: a lost or overlapping run shows as
  /// a wrong total (and to ThreadSanitizer as a race). Each run publishes the total.
  struct Summing: SerialDrainWork {
    typealias Event = Int
    var total = 0
    let published: Locked<Int>

    mutating func run(_ event: Int, in drain: SerialDrain<Summing>) {
      total += event
      let total = total
      published.withLock { $0 = total }
    }
  }

  @Test func sendersOnTwoThreadsAtOnceHaveEveryEventRunOnce() {
    race(
      iterations: Stress.iterations(20_000),
      setup: { () -> (drain: SerialDrain<Summing>, total: Locked<Int>) in
        let total = Locked(0)
        return (SerialDrain(Summing(published: total)), total)
      },
      { state in state.drain.send(1) },
      { state in state.drain.send(2) },
      check: { state in
        let total = state.total.withLock { $0 }
        #expect(total == 3, "both events ran, once each")
      })
  }
}

@Suite("OnceFlag: exactly one taker")
struct OnceFlagTests {
  final class Host: OnceFlagHost, @unchecked Sendable {
    // Safety of `@unchecked Sendable`: the only variable is the flag's storage, reached only
    // through `onceFlag`.
    private var onceStorage = OnceFlagStorage()
    init() {
      precondition(hostsOnceFlag(at: &onceStorage), "the flag is not where OnceFlagHost.onceFlag looks")
    }
  }

  @Test func onlyTheFirstTakeSucceeds() {
    let host = Host()
    #expect(!host.onceFlag.isTaken)
    #expect(host.onceFlag.take())
    #expect(!host.onceFlag.take(), "a second take fails")
    #expect(host.onceFlag.isTaken)
  }

  @Test func twoThreadsTakingAtOnceHaveOneWinner() {
    race(
      iterations: Stress.iterations(20_000), setup: { (host: Host(), winners: Counter()) },
      { state in if state.host.onceFlag.take() { state.winners.increment() } },
      { state in if state.host.onceFlag.take() { state.winners.increment() } },
      check: { state in #expect(state.winners.value == 1, "exactly one of two takers wins") })
  }
}
