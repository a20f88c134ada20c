/// Waits for many futures of one type.
///
/// - ``future`` succeeds with every value (in input order) once all inputs succeeded, and
///   otherwise ends like the first input that failed or was cancelled, at that moment.
/// - ``resultsFuture`` completes with every input's result once all inputs completed.
///
/// A cancel request on either future, or ``cancel(_:fileID:line:function:)``, is forwarded to every input that is
/// still pending, as the input's own token would send it (FutureKit's batch cancellation): the
/// batch is the one consumer that asks for all of them. An input given more than once counts
/// once.
public final class FutureBatchOf<T: Sendable>: OnceFlagHost, @unchecked Sendable {
  // Safety of `@unchecked Sendable`: the only variable is the storage of the core's atomic
  // `OnceFlag`, reached only through `onceFlag` after `init`; every other field is immutable.
  /// The storage of `onceFlag`, taken by the first ``cancel(_:fileID:line:function:)``, as a token's. It must stay the
  /// first stored property (see `OnceFlagHost`).
  @exclusivity(unchecked) private var onceStorage = OnceFlagStorage()
  /// The inputs, in order.
  public let subFutures: [Future<T>]
  /// Every value once all inputs succeeded; the first failure or cancellation otherwise.
  public let future: Future<[T]>
  /// Every input's result once all inputs completed.
  public let resultsFuture: Future<[FutureResult<T>]>

  /// A batch of `futures`. An empty batch completes at once with empty arrays.
  public init(_ futures: [Future<T>]) {
    subFutures = futures
    guard !futures.isEmpty else {
      future = Future(success: [])
      resultsFuture = Future(success: [])
      precondition(hostsOnceFlag(at: &onceStorage), "the flag is not where OnceFlagHost.onceFlag looks")
      return
    }
    let future = Future<[T]>(pending: ())
    let resultsFuture = Future<[FutureResult<T>]>(pending: ())
    let inputs = distinctFutures(futures)
    let join = FutureJoin(
      count: inputs.count,
      onFirst: { failed in
        if let failed {
          future.settle(passingOn: inputs[failed])
        } else {
          future.settle(.success(futures.map { $0.value! }), detachUpstream: false)
        }
      },
      onAll: {
        resultsFuture.settle(.success(futures.map { $0.result! }), detachUpstream: false)
      })
    // One callback per input serves both futures; both forward requests directly.
    future.connect(join, to: inputs, direct: true)
    resultsFuture.share(upstreamOf: future)
    self.future = future
    self.resultsFuture = resultsFuture
    precondition(hostsOnceFlag(at: &onceStorage), "the flag is not where OnceFlagHost.onceFlag looks")
  }

  /// A batch of `futures`.
  public convenience init(futures: [Future<T>]) {
    self.init(futures)
  }

  /// Requests cancellation of every input that is still pending, as each input's own token
  /// would. Like a token, a batch requests at most once: only its first `cancel` does anything
  /// (so a request handler of an input may cancel the batch without sending its inputs a second
  /// round of requests).
  ///
  /// - Parameters:
  ///   - options: how the requests travel; none by default.
  ///   - fileID: the caller's file, for the records of the futures the requests end; leave the
  ///     default.
  ///   - line: the caller's line, for those records; leave the default.
  ///   - function: the caller's function, for those records; leave the default.
  public func cancel(
    _ options: CancellationOptions = [], fileID: StaticString = #fileID, line: Int = #line,
    function: StaticString = #function
  ) {
    guard onceFlag.take() else { return }
    let origin = CancelOrigin(fileID: fileID, line: line, function: function)
    for input in subFutures { input.requestCancel(options, origin: origin) }
  }
}

/// Waits for many futures of different types: a ``FutureBatchOf`` whose values are
/// `any Sendable`.
public final class FutureBatch: Sendable {
  private let batch: FutureBatchOf<any Sendable>

  /// A batch of `futures`, in order.
  public init(_ futures: [any AnyFuture]) {
    batch = FutureBatchOf(futures.map { $0.anySendableFuture })
  }

  /// The inputs as futures of `any Sendable`, in order.
  public var subFutures: [Future<any Sendable>] { batch.subFutures }

  /// Every value once all inputs succeeded; the first failure or cancellation otherwise.
  public var future: Future<[any Sendable]> { batch.future }

  /// Every input's result once all inputs completed.
  public var resultsFuture: Future<[FutureResult<any Sendable>]> { batch.resultsFuture }

  /// Requests cancellation of every input that is still pending, at most once (see
  /// ``FutureBatchOf/cancel(_:fileID:line:function:)``).
  ///
  /// - Parameters:
  ///   - options: how the requests travel; none by default.
  ///   - fileID: the caller's file, for the records; leave the default.
  ///   - line: the caller's line, for the records; leave the default.
  ///   - function: the caller's function, for the records; leave the default.
  public func cancel(
    _ options: CancellationOptions = [], fileID: StaticString = #fileID, line: Int = #line,
    function: StaticString = #function
  ) {
    batch.cancel(options, fileID: fileID, line: line, function: function)
  }
}

/// A future of any value type, for ``FutureBatch``.
public protocol AnyFuture: Sendable {
  /// This future's result with its value as `any Sendable`. A cancel request on it reaches this
  /// future.
  var anySendableFuture: Future<any Sendable> { get }
}

extension Future: AnyFuture {
  /// This future's result with its value as `any Sendable` (a derived future on
  /// ``Executor/immediate``).
  public final var anySendableFuture: Future<any Sendable> {
    map(.immediate) { $0 }
  }
}

extension Future {
  /// Makes `other`'s upstream links this future's too (the batch's two futures share the inputs'
  /// callbacks).
  final func share(upstreamOf other: _FutureCore) {
    _ = waitOn(other.upstreamLinks)  // what it returns is released after unlocking
  }
}
