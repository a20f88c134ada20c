/// What a completion moves out of the future's request state, to be released after unlocking.
struct ReleasedRequestState {
  var upstream = Upstream.none
  var handlers: ContiguousArray<RequestHandler> = []
  var endObservers: ContiguousArray<@Sendable () -> Void> = []

  /// Runs the end observers taken from the future, after unlocking.
  func runEndObservers() {
    if !endObservers.isEmpty { for observer in endObservers { observer() } }
  }
}
