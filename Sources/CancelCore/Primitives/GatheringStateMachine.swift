/// The state of a gathering: the values that arrived, by input index, and the countdown of the
/// inputs still awaited.
///
/// A plain value with no lock and no user code: ``Gathering`` hosts it beside a `CoreLock`.
@usableFromInline
package struct GatheringStateMachine<Value> {
  /// The values so far, by input index; emptied when handed over.
  @usableFromInline var values: ContiguousArray<Value?>
  @usableFromInline var countdown: CountdownStateMachine

  /// A gathering of `count` values (at least one), none arrived.
  @inlinable
  package init(count: Int) {
    countdown = CountdownStateMachine(count: count)
    values = ContiguousArray(repeating: nil, count: count)
  }

  /// Records input `index`'s value. Returns every value, by input index, exactly once: to the
  /// arrival that completed the gathering, which then owns them (the machine keeps none).
  @inlinable
  package mutating func arrive(_ index: Int, _ value: Value) -> ContiguousArray<Value?>? {
    values[index] = value
    guard countdown.arrive(counted: true) else { return nil }
    var complete = ContiguousArray<Value?>()
    swap(&complete, &values)
    return complete
  }
}

extension GatheringStateMachine: Sendable where Value: Sendable {}
