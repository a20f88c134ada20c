/// What only some sources have: a label, a pending deadline.
///
/// Kept inline in the state machine as one reference (or none): a source with neither stores one
/// empty word; an unlabelled source with a deadline keeps only its ``ArmedDeadline``; a labelled
/// source keeps a ``LabelledExtras`` that holds the label and the deadline.
enum SourceExtras: Sendable {
  case none
  case deadline(ArmedDeadline)
  case labelled(LabelledExtras)

  /// The label the source was made with.
  var label: String? {
    if case .labelled(let extras) = self { return extras.label }
    return nil
  }

  /// The pending deadline.
  var deadline: ArmedDeadline? {
    switch self {
    case .none: return nil
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
  var deadline: ArmedDeadline?

  init(label: String) {
    self.label = label
  }
}
