/// What only some sources have: a label, a pending deadline, or being part of a larger object.
///
/// Kept inline in the state machine as one reference (or none): a source with none of them
/// stores one empty word; an unlabelled source with a deadline keeps only its ``ArmedDeadline``;
/// a labelled source keeps a ``LabelledExtras`` that holds the label and the deadline. An
/// unlabelled part (see ``CancelStorage/init(partOf:)``) keeps only the identity of its whole.
enum SourceExtras: Sendable {
  case none
  case deadline(ArmedDeadline)
  case labelled(LabelledExtras)
  /// An unlabelled part of the larger object whose main source is the one given (not retained: it
  /// only tells, in records, hops of the same object apart from others); parts never get a
  /// deadline.
  case part(of: Unmanaged<CancelStorage>)

  /// The label the source was made with.
  var label: String? {
    if case .labelled(let extras) = self { return extras.label }
    return nil
  }

  /// For a part of a larger object, the object's main source (not retained).
  var whole: Unmanaged<CancelStorage>? {
    switch self {
    case .part(let whole): return whole
    case .labelled(let extras): return extras.whole
    case .none, .deadline: return nil
    }
  }

  /// The pending deadline.
  var deadline: ArmedDeadline? {
    switch self {
    case .none, .part: return nil
    case .deadline(let deadline): return deadline
    case .labelled(let extras): return extras.deadline
    }
  }

  /// Installs `new` (or none) as the pending deadline and returns the one it replaced. The label
  /// stays.
  mutating func replaceDeadline(with new: ArmedDeadline?) -> ArmedDeadline? {
    switch self {
    case .none:
      if let new { self = .deadline(new) }
      return nil
    case .part:
      precondition(new == nil, "a part of a larger object has no deadline of its own")
      return nil
    case .deadline(let old):
      self = new.map { .deadline($0) } ?? .none
      return old
    case .labelled(let extras):
      defer { extras.deadline = new }
      return extras.deadline
    }
  }
}

/// A labelled source's label and pending deadline.
//
// `@unchecked Sendable`: `deadline` is read and written only by the state machine that holds this
// object, which its storage accesses only under its lock; `label` is immutable.
final class LabelledExtras: @unchecked Sendable {
  let label: String
  /// For a part of a larger object, the object's main source (see ``SourceExtras/whole``).
  let whole: Unmanaged<CancelStorage>?
  var deadline: ArmedDeadline?

  init(label: String, whole: Unmanaged<CancelStorage>? = nil) {
    self.label = label
    self.whole = whole
  }
}
