/// `CancellationError()` boxed once as `any Error`.
///
/// Boxing an error allocates; cancelling with the default reason is common enough that every
/// cancel sharing one box saves a measurable allocation per source.
package let defaultCancellationReason: any Error = CancellationError()
