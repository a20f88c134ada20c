extension Future {
  /// A pending future, to be completed through `Promise(producing:)`. For the package's other
  /// modules, whose convenience initializers must start from a pending future.
  package convenience init(pendingForProducer: ()) {
    self.init(pending: ())
  }
}
