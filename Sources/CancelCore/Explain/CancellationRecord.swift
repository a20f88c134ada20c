import Foundation

/// Why, when, where from and along which links a source was cancelled.
///
/// Read it from a cancelled ``CancelSignal`` or ``CancelSource`` (``CancelSignal/cancellationRecord``),
/// or from a token, a request, a cancellable promise chain or a future. It is built
/// on demand from what the first cancel fixed, so it never changes after that cancel (but for
/// ``date``, an estimate), and sources that are never cancelled pay nothing for it.
///
/// ```swift
/// let request = CancelSource(label: "GET /users")
/// let query = CancelSource(linkedTo: [request.signal], label: "db query")
/// request.cancel(reason: TimeoutError(timeout: .seconds(5)))
/// print(query.signal.cancellationRecord!)
/// // cancelled by TimeoutError(timed out after 5 s) at 12:00:03.250 — call of "GET /users"
/// // (App/UserService.swift:42 in fetch()) → link → "db query"
/// ```
///
/// How to read one: `docs/explaining-cancellation.md`.
public struct CancellationRecord: Sendable, CustomStringConvertible, CustomDebugStringConvertible {
  /// What started a cancel.
  public enum Trigger: Sendable, Hashable, CustomStringConvertible {
    /// A `cancel` call on a source, request, chain or future.
    case call
    /// A deadline passed (the origin is where it was set).
    case deadline
    /// The task the source follows was cancelled.
    case task
    /// A graceful shutdown began.
    case shutdown
    /// An integration cancelled it on an event of its own; the value names it (`"NIO"`, say).
    case integration(String)

    /// A few words for people: "call", "deadline", "task cancellation", "graceful shutdown", or the
    /// integration's name.
    public var description: String {
      switch self {
      case .call: return "call"
      case .deadline: return "deadline"
      case .task: return "task cancellation"
      case .shutdown: return "graceful shutdown"
      case .integration(let name): return name
      }
    }
  }

  /// One source the cancel went through, from the origin to the source the record was read from.
  public struct Hop: Sendable, Hashable {
    /// How the cancel reached a source.
    public enum Arrival: Sendable, Hashable {
      /// The cancel started at this source.
      case origin
      /// Through a link from the previous hop (a linked source, a derived token).
      case link
      /// Through a join (`&&`, `||`, any-of, all-of) of which the previous hop is an operand.
      case join
      /// A future's cancel request, passed up from the previous hop (a future that waits on this
      /// one, directly or through futures in between) to this future.
      case request
      /// This future completed cancelled because the previous hop, the future it waited on (its
      /// parent, the future it was handed over to, or a combinator's input), did.
      case completion
    }

    /// How the future where a cancel started came to end cancelled: set on that hop of a future's
    /// record, `nil` on every other hop (and on every hop of a source's record).
    public enum Ending: Sendable, Hashable, CustomStringConvertible {
      /// The request's options forced the future to complete cancelled at once.
      case forced
      /// The request stopped at a future that other consumers still wait on: this future, the
      /// consumer that asked, left it and completed cancelled alone.
      case detached
      /// A producer's request handler answered the request with a cancelled completion (or
      /// `automaticallyCancelOnRequestCancel()` did).
      case requestHandler
      /// The future's producer completed it cancelled (`completeWithCancel()`,
      /// `complete(.cancelled)`).
      case producer
      /// A block completed it cancelled, or it was made cancelled.
      case block

      /// A few words for people: "forced", "detached", "answered by a request handler",
      /// "completed cancelled by its producer", "completed cancelled by a block".
      public var description: String {
        switch self {
        case .forced: return "forced"
        case .detached: return "detached"
        case .requestHandler: return "answered by a request handler"
        case .producer: return "completed cancelled by its producer"
        case .block: return "completed cancelled by a block"
        }
      }
    }

    /// The source's (or future's) label, if it was given one when it was made.
    public let label: String?
    /// How the cancel reached it.
    public let arrival: Arrival
    /// For the future where a cancel started: how it ended cancelled. `nil` otherwise.
    public let ending: Ending?

    /// A hop; records are made by the library, this is for comparing in tests.
    public init(label: String?, arrival: Arrival, ending: Ending? = nil) {
      self.label = label
      self.arrival = arrival
      self.ending = ending
    }
  }

  /// The reason: the error the first cancel gave. A future carries no error: its record's reason is
  /// `CancellationError()`, unless the cancel of another facade reached it through a bridge (then
  /// that cancel's: a token's reason, or a cancellable chain's error).
  public let reason: any Error
  /// When the cancel started, on the continuous clock (see ``date`` for the wall clock).
  public let instant: ContinuousClock.Instant
  /// The `#fileID` of the call that started the cancel (or that set the deadline); empty when the
  /// cancel came through a protocol requirement that cannot capture its caller
  /// (`Cancellable.cancel()`, `cancel(dueTo:)`) or from a system event.
  public let fileID: String
  /// The line of that call; 0 when ``fileID`` is empty.
  public let line: Int
  /// The function that made that call; empty when ``fileID`` is.
  public let function: String
  /// What started the cancel.
  public let trigger: Trigger
  /// The sources the cancel went through, the origin first and the source read from last. A
  /// source reached twice (a diamond of links) appears along the first path that arrived.
  public let hops: [Hop]

  /// The labels met from the origin to the source read from, in order (unlabelled hops left out).
  public var path: [String] { hops.compactMap(\.label) }

  /// The label of the source the record was read from.
  public var label: String? { hops.last?.label }

  /// Whether the cancel started at the source read from (no link or join in between).
  public var isDirect: Bool { hops.count == 1 }

  /// The wall-clock time of ``instant``, estimated from the two clocks when this record was built
  /// (read), so one record value always gives the same date. Two reads of the same source's record
  /// can differ by the microseconds between the two clock readings, or by a change of the wall
  /// clock between them: compare ``instant``, which never changes.
  public let date: Date

  /// ``date`` for `instant`, estimated now.
  private static func estimatedDate(of instant: ContinuousClock.Instant) -> Date {
    let elapsed = ContinuousClock.now - instant
    let (seconds, attoseconds) = elapsed.components
    return Date(timeIntervalSinceNow: -(Double(seconds) + Double(attoseconds) / 1e18))
  }

  package init(
    reason: any Error, instant: ContinuousClock.Instant, origin: CancelOrigin, trigger: Trigger, hops: [Hop]
  ) {
    self.reason = reason
    self.instant = instant
    date = Self.estimatedDate(of: instant)
    fileID = origin.fileID
    line = origin.isKnown ? Int(origin.line) : 0
    function = origin.functionName
    self.trigger = trigger
    self.hops = hops
  }

  /// `base` with its hops replaced by `hops`: the record of something `base`'s cancel reached
  /// beyond its source (a future a token's bridge cancelled).
  package init(extending base: CancellationRecord, hops: [Hop]) {
    reason = base.reason
    instant = base.instant
    date = base.date
    fileID = base.fileID
    line = base.line
    function = base.function
    trigger = base.trigger
    self.hops = hops
  }

  /// One line: the reason, the time of day, what started it and where, then the path, e.g.
  /// `cancelled by TimeoutError(timed out after 5 s) at 12:00:03.250 — deadline of "GET /users"
  /// (App/UserService.swift:42 in fetch()) → link → "db query"`.
  public var description: String {
    var text = "cancelled by \(Self.oneLine("\(reason)")) at \(Self.timeOfDay(date)) — \(trigger)"
    var rest = hops[...]
    let first = rest.popFirst()
    if let label = first?.label { text += " of \(Self.quoted(label))" }
    if !fileID.isEmpty { text += " (\(fileID):\(line)\(function.isEmpty ? "" : " in \(function)"))" }
    if let ending = first?.ending { text += " [\(ending)]" }
    for hop in rest {
      text += " → \(Self.word(for: hop.arrival))"
      if let label = hop.label { text += " → \(Self.quoted(label))" }
      if let ending = hop.ending { text += " [\(ending)]" }
    }
    return text
  }

  /// How the description names an arrival between two hops.
  private static func word(for arrival: Hop.Arrival) -> String {
    switch arrival {
    case .origin, .link: return "link"
    case .join: return "join"
    case .request: return "request"
    case .completion: return "completion"
    }
  }

  /// The ``description``.
  public var debugDescription: String { "CancellationRecord(\(description))" }

  /// `label` in quotes, with quotes, backslashes and line breaks escaped as in Swift source, so
  /// the description stays one line whatever the label holds.
  private static func quoted(_ label: String) -> String { oneLine(String(reflecting: label)) }

  /// `text` with every line break written as an escape (`\n`, `\r`, `\u{2028}`…: all that
  /// `Character.isNewline` counts), so the description stays one line.
  private static func oneLine(_ text: String) -> String {
    guard text.contains(where: \.isNewline) else { return text }
    var escaped = ""
    for character in text {
      guard character.isNewline else {
        escaped.append(character)
        continue
      }
      for scalar in character.unicodeScalars {
        switch scalar {
        case "\n": escaped += "\\n"
        case "\r": escaped += "\\r"
        default: escaped += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
        }
      }
    }
    return escaped
  }

  /// "HH:mm:ss.SSS" in the local time zone.
  private static func timeOfDay(_ date: Date) -> String {
    let parts = Calendar.current.dateComponents([.hour, .minute, .second, .nanosecond], from: date)
    func two(_ value: Int?) -> String {
      let value = value ?? 0
      return value < 10 ? "0\(value)" : "\(value)"
    }
    let milliseconds = (parts.nanosecond ?? 0) / 1_000_000
    let millisecondsText =
      milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
    return "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)).\(millisecondsText)"
  }
}
