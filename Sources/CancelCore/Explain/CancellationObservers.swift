/// The process's one observer of cancellation records, set once (see
/// ``CancellationRecord/setObserver(_:)``).
///
/// Until it is set, a cancel pays one atomic load for it. Once set, every source that is cancelled
/// builds its record and hands it to the observer on the cancelling thread, inside the cancel
/// loop, so what the observer cancels in turn is queued and done after it returns, never inside it.
package enum CancellationObservers {
  /// Whether an observer was set: one atomic load.
  @inline(__always) package static var isObserving: Bool { observerSlot.isSet.isRaised }

  /// Hands `record`, built by another module of the package (a future's), to the observer; call
  /// it only when ``isObserving``, outside any lock.
  package static func report(_ record: CancellationRecord) {
    observerSlot.observer?(record)
  }

  /// Builds `source`'s record and hands it to the observer (nothing if none is set). A part of a
  /// larger object (see `CancelStorage.init(partOf:)`) is not reported on its own: records show
  /// the object as one hop, and its main source reports the cancel once.
  static func notify(_ source: CancelStorage) {
    guard let observer = observerSlot.observer, !source.isPart, let record = source.cancellationRecord else { return }
    observer(record)
  }
}

/// Where the observer is kept. It is written once, by the one caller that takes `claimed`, before
/// `isSet` is raised; it is read only after `isSet` was seen raised (an acquiring load, paired
/// with the raise's release), so the reads never race with the write.
//
// `@unchecked Sendable`: `written` is only written before `isSet` is raised and only read after it
// was seen raised, as above; `claimed` and `isSet` are atomic.
final class CancellationObserverSlot: OnceFlagHost, @unchecked Sendable {
  /// The flag the one writer takes; the first stored property (see ``OnceFlagHost``).
  var onceStorage = OnceFlagStorage()
  let isSet = StickyFlag()
  @exclusivity(unchecked) private var written: (@Sendable (CancellationRecord) -> Void)?

  init() {
    precondition(hostsOnceFlag(at: &onceStorage), "the flag is not where OnceFlagHost.onceFlag looks")
  }

  /// The observer, once set.
  var observer: (@Sendable (CancellationRecord) -> Void)? {
    isSet.isRaised ? written : nil
  }

  /// Sets the observer unless one was set; returns whether this call set it.
  func set(_ observer: @escaping @Sendable (CancellationRecord) -> Void) -> Bool {
    guard onceFlag.take() else { return false }
    written = observer
    isSet.raise()
    return true
  }
}

private let observerSlot = CancellationObserverSlot()

extension CancellationRecord {
  /// Sets the process's observer of cancellations: from now on, each source, request, chain or
  /// future that is cancelled hands its record to `observer` as it happens, once, on the thread
  /// that cancels it (before its handlers run; inside a handler's cancel, when that handler
  /// returns). Nothing is observed, logged or traced by default.
  ///
  /// There is one observer per process, set once, as early as you like (at start-up): an app, a
  /// server or a test binary decides, not a library. To send records to several places, have it
  /// fan out. The Adapters module's `Observability` trait offers swift-log and
  /// swift-distributed-tracing forms of the record, and observers that send them.
  ///
  /// The observer must not block: every cancel in the process waits for it. It may cancel (what
  /// it cancels is done after it returns), and it may read any source.
  ///
  /// - Returns: `true` if `observer` is now the observer; `false` if one was already set (it stays).
  @discardableResult
  public static func setObserver(_ observer: @escaping @Sendable (CancellationRecord) -> Void) -> Bool {
    observerSlot.set(observer)
  }
}
