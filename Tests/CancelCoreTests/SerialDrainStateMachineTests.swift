import CancelCore
import Testing

@Suite("SerialDrainStateMachine")
struct SerialDrainStateMachineTests {
  @Test func theFirstRequesterDrainsEveryRequestLeftWhileItRuns() {
    var machine = SerialDrainStateMachine()
    let first = machine.request()
    let second = machine.request()
    let third = machine.request()
    #expect(first, "the first request makes the caller the drainer")
    #expect(!second && !third, "requests during a run are left for the drainer")
    let runs = [machine.finishedRun(), machine.finishedRun(), machine.finishedRun()]
    #expect(runs == [true, true, false], "the drainer runs once per request, then stops")
    let again = machine.request()
    let stop = machine.finishedRun()
    #expect(again && !stop, "the next request makes its caller the drainer again")
  }
}
