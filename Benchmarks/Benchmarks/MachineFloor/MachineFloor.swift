import Benchmark

/// Registers the `floor:` benchmark, which every benchmark target runs beside its own.
///
/// `../shared/PERFORMANCE.md` measured a small final class alloc+free at 49 ns on the machine the
/// targets were set on. Measured in the same run as the rest, it says how fast this machine is
/// today: absolute times drift 1.2–1.8× between VM instances, so a figure read against an absolute
/// target is also read scaled by 49 ns / this floor. Call it after setting
/// `Benchmark.defaultConfiguration`, whose settings it takes.
public func registerMachineFloor() {
  Benchmark("floor: small final class alloc+free") { benchmark in
    for _ in benchmark.scaledIterations {
      blackHole(FloorObject())
    }
  }
}

/// The floor benchmark's object: the smallest final class, as in `../shared/PERFORMANCE.md`.
final class FloorObject {
  var value = 0
}
