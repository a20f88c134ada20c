/// A flag that is raised once and never lowered, read with one atomic load: how a module skips
/// work that matters only once a feature has been used somewhere in the process (the Tokens
/// module's task-local lookup of the current token, before any scope was ever bound).
///
/// Raising it reads first and writes only while it is down, so raising it again and again (once
/// per scope) keeps its cache line shared between the cores instead of writing it each time.
// @unchecked Sendable: the only stored property is the flag's storage, which only `onceFlag`
// reaches, and only atomically.
@usableFromInline
package final class StickyFlag: OnceFlagHost, @unchecked Sendable {
  /// The flag's word, inline; the first stored property (see ``OnceFlagHost``).
  @usableFromInline var onceStorage = OnceFlagStorage()

  /// A flag that is down.
  package init() {
    precondition(hostsOnceFlag(at: &onceStorage), "the flag is not where OnceFlagHost.onceFlag looks")
  }

  /// Whether the flag was ever raised. A reader that can see what the raiser did after raising
  /// it (a task-local it bound, for one) sees it raised.
  @inlinable @inline(__always)
  package var isRaised: Bool { onceFlag.isTaken }

  /// Raises the flag, for good.
  @inlinable @inline(__always)
  package func raise() {
    if !onceFlag.isTaken { _ = onceFlag.take() }
  }
}
