#if canImport(Glibc)
  import Glibc
#elseif canImport(Musl)
  import Musl
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where a cancel was asked for: the `#fileID`, `#line` and `#function` of the call, captured with
/// default arguments (no stack walking).
///
/// Two pointers and a line: the file and function are static strings, whose characters live in
/// the binary, so keeping one costs no allocation and no reference count.
//
// `@unchecked Sendable`: the two pointers refer to immutable constant data that lives as long as
// the process, and the struct is never mutated.
@usableFromInline
package struct CancelOrigin: @unchecked Sendable {
  // `StaticString` literals made by `#fileID` and `#function` are NUL-terminated UTF-8 in the
  // binary's constant data: the start pointer is the whole string, and it is never freed.
  @usableFromInline let file: UnsafeRawPointer?
  @usableFromInline let function: UnsafeRawPointer?
  @usableFromInline let line: UInt32

  /// The origin of a call at `fileID`, `line`, in `function`.
  @inlinable package init(fileID: StaticString, line: Int, function: StaticString) {
    file = fileID.hasPointerRepresentation ? UnsafeRawPointer(fileID.utf8Start) : nil
    self.function = function.hasPointerRepresentation ? UnsafeRawPointer(function.utf8Start) : nil
    self.line = UInt32(truncatingIfNeeded: max(0, line))
  }

  private init(unknown: Void) {
    file = nil
    function = nil
    line = 0
  }

  /// No origin: the cancel came through a protocol requirement that cannot capture its caller.
  @usableFromInline package static var unknown: CancelOrigin { CancelOrigin(unknown: ()) }

  /// Whether a call site was captured.
  var isKnown: Bool { file != nil }

  var fileID: String { file.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "" }
  var functionName: String { function.map { String(cString: $0.assumingMemoryBound(to: CChar.self)) } ?? "" }
}

/// An integration that cancels sources on events of its own (see ``CancelCause/integration(_:)``).
/// A small enum rather than a name, so the cause stays one word.
@usableFromInline
package enum CancelIntegration: UInt8, Sendable {
  /// grpc-swift 2: the client cancelled the RPC, or the server is shutting down.
  case gRPC

  /// The name a record shows.
  var name: String {
    switch self {
    case .gRPC: return "gRPC"
    }
  }
}

/// What made a source cancelled, as its state keeps it: a call, a deadline, a task, a shutdown or
/// an integration started the cancel here, or it arrived from another source through a link or a
/// join (that source is kept, so the path can be read back to where the cancel started).
@usableFromInline
package enum CancelCause: Sendable {
  /// `cancel` was called on this source (or its owner).
  case call
  /// This source's deadline passed.
  case deadline
  /// The task this source follows was cancelled.
  case task
  /// A graceful shutdown began.
  case shutdown
  /// An integration cancelled it on an event of its own (a client cancelled its RPC).
  case integration(CancelIntegration)
  /// A parent this source is linked to was cancelled.
  case link(CancelStorage)
  /// An operand of the join this source is the result of was cancelled.
  case join(CancelStorage)
}

/// What a cancelled source keeps about its cancel besides the reason: the instant, where it was
/// asked for and what caused it. Fixed by the first cancel, in fields of the source's state
/// machine beside its phase (not in the phase: a larger phase would cost every register and
/// unregister), so recording costs no allocation; only the record built from it on demand does.
///
/// Plain data, copied with a few stores: the source the cancel came from is kept as an unmanaged
/// reference, retained by the state machine when the cancel is recorded (``retainPrevious()``)
/// and released when the source is freed (`CancelStorage.deinit`), so a cancel that records no
/// link copies no reference count.
//
// `@unchecked Sendable`: `previous` is an unmanaged reference to a `Sendable` object, and the
// pointers in `origin` refer to immutable constant data.
struct CancelFactsFields: @unchecked Sendable {
  /// What ``CancelCause`` the cancel had, without its source.
  enum Kind: UInt8 {
    case call, deadline, task, shutdown, integration, link, join
  }

  /// The instant of the cancel, as the count of ``clockNanoseconds()``; 0 for a cancel that came
  /// through a link or a join, whose instant is that of its origin (not a
  /// `ContinuousClock.Instant`, whose layout is not fixed at compile time: keeping one would move
  /// the state machine's copies and destruction to the runtime's value witnesses).
  var clockCount: Int64 = 0
  var origin = CancelOrigin.unknown
  var kind = Kind.call
  var integration = CancelIntegration.gRPC
  /// The source of a `link` or `join` cause.
  var previous: Unmanaged<CancelStorage>? = nil

  init() {}

  /// The facts of a cancel happening now. `previous` is not retained yet.
  @inline(__always)
  init(origin: CancelOrigin, cause: CancelCause) {
    self.origin = origin
    switch cause {
    case .call: kind = .call
    case .deadline: kind = .deadline
    case .task: kind = .task
    case .shutdown: kind = .shutdown
    case .integration(let which):
      kind = .integration
      integration = which
    case .link(let source):
      kind = .link
      previous = Unmanaged.passUnretained(source)
      return  // no clock: the record's instant is that of the source where the cancel started
    case .join(let source):
      kind = .join
      previous = Unmanaged.passUnretained(source)
      return
    }
    clockCount = Self.clockNanoseconds()
  }

  /// Keeps the source the cancel came from, for as long as these facts are kept.
  func retainPrevious() {
    _ = previous?.retain()
  }

  /// The cause; its source is valid while the source these facts belong to is.
  var cause: CancelCause {
    switch kind {
    case .call: return .call
    case .deadline: return .deadline
    case .task: return .task
    case .shutdown: return .shutdown
    case .integration: return .integration(integration)
    case .link, .join:
      // Always set for these kinds, but read defensively: a record must never trap.
      guard let previous else { return .call }
      return kind == .link ? .link(previous.takeUnretainedValue()) : .join(previous.takeUnretainedValue())
    }
  }

  /// The instant of the cancel on the continuous clock, which counts the same time.
  var instant: ContinuousClock.Instant { Self.instantOfCountZero + .nanoseconds(clockCount) }

  /// The continuous clock's instant at which ``clockNanoseconds()`` read 0: read once (on the first
  /// record, never on a cancel), so every read of a record gives the same instant.
  static let instantOfCountZero = ContinuousClock.now - .nanoseconds(clockNanoseconds())

  /// The clock `ContinuousClock` reads, in nanoseconds, read directly: `ContinuousClock.now`
  /// and the `Duration` arithmetic to store it cost a cancel about four times as much.
  static func clockNanoseconds() -> Int64 {
    #if canImport(Darwin)
      return Int64(truncatingIfNeeded: clock_gettime_nsec_np(CLOCK_MONOTONIC_RAW))
    #else
      var time = timespec()
      clock_gettime(CLOCK_BOOTTIME, &time)
      return Int64(time.tv_sec) &* 1_000_000_000 &+ Int64(time.tv_nsec)
    #endif
  }
}

/// The clock records are stamped with, for the package's other modules (a future's record keeps
/// its own facts): the same count `CancelFactsFields` keeps.
package enum RecordClock {
  /// The clock's count now, in nanoseconds.
  @inline(__always) package static func now() -> Int64 { CancelFactsFields.clockNanoseconds() }

  /// The continuous clock's instant of `count`, a value of ``now()``.
  package static func instant(of count: Int64) -> ContinuousClock.Instant {
    CancelFactsFields.instantOfCountZero + .nanoseconds(count)
  }
}

/// A cancelled source's reason and facts, read together under its lock.
struct CancelFacts {
  let reason: any Error
  let fields: CancelFactsFields
}
