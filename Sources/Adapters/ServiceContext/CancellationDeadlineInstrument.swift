#if ServiceContext
  import CancelCore
  import Instrumentation
  import Tokens

  /// An `Instrument` that carries the deadline of the work across process boundaries, as the time
  /// left (``RemainingTime``) in a request header.
  ///
  /// **Injecting** (a client about to send a request) writes the time left until the earliest of
  /// the context's `ServiceContext.cancellationDeadline`, the deadline of its
  /// `ServiceContext.cancellationToken` and the deadline of the running task's
  /// `CancellationToken.current`; nothing if none has a deadline. A deadline that has passed is
  /// sent as `0n`.
  ///
  /// **Extracting** (a server receiving a request) reads the header and sets
  /// `ServiceContext.cancellationDeadline` to the instant of arrival plus the time that was
  /// left (the earlier of that and a deadline the context already had). A missing header sets
  /// nothing; a malformed one (see ``RemainingTime``) is ignored. The handler then runs under
  /// ``withServiceContextCancellation(isolation:fileID:line:function:operation:)`` to be cancelled
  /// when that deadline passes, with a `TimeoutError`.
  ///
  /// Only the deadline crosses the boundary. A cancellation's reason stays in its process: it is
  /// an arbitrary Swift error the receiver could not decode, and a caller that gives up closes
  /// its connection or sends its transport's cancel (an HTTP/2 `RST_STREAM`), which the server's
  /// framework turns into the cancellation of the handler's task.
  ///
  /// Install it next to a tracer with `MultiplexInstrument`:
  ///
  /// ```swift
  /// InstrumentationSystem.bootstrap(MultiplexInstrument([tracer, CancellationDeadlineInstrument()]))
  /// ```
  public struct CancellationDeadlineInstrument: Instrument {
    /// The header the remaining time travels in.
    public let headerName: String

    /// An instrument that writes and reads the remaining time in `headerName`.
    ///
    /// - Parameter headerName: the header; ``RemainingTime/headerName`` (`request-timeout`) by
    ///   default. Pass `"grpc-timeout"` to speak gRPC's header.
    public init(headerName: String = RemainingTime.headerName) {
      self.headerName = headerName
    }

    /// Writes the time left until the work's earliest deadline into `carrier` (see the type's
    /// overview); writes nothing if the work has no deadline.
    ///
    /// - Parameters:
    ///   - context: the service context of the outgoing request.
    ///   - carrier: the outgoing request's headers.
    ///   - injector: writes one header into `carrier`.
    public func inject<Carrier, Inject: Injector>(
      _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
      guard let deadline = earliest(context.earliestCancellationDeadline, CancellationToken.current?.deadline)
      else { return }
      injector.inject(RemainingTime(until: deadline).headerValue, forKey: headerName, into: &carrier)
    }

    /// Reads the remaining time from `carrier` into the context's
    /// `ServiceContext.cancellationDeadline` (see the type's overview).
    ///
    /// - Parameters:
    ///   - carrier: the incoming request's headers.
    ///   - context: the service context being built for the request.
    ///   - extractor: reads one header from `carrier`.
    public func extract<Carrier, Extract: Extractor>(
      _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
      guard let value = extractor.extract(key: headerName, from: carrier),
        let remaining = RemainingTime(headerValue: value)
      else { return }
      context.cancellationDeadline = earliest(context.cancellationDeadline, remaining.deadline())
    }
  }
#endif
