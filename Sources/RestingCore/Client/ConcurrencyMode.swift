/// How many calls of one ``RestingClient`` may be in flight at once (Malibu's `async`, `sync` and `limited`).
/// Calls beyond the limit wait in order of arrival; cancelling a waiting call removes it from the queue.
public enum ConcurrencyMode: Sendable, Equatable {
    /// Every call goes to the transport at once.
    case unlimited
    /// One call at a time.
    case serial
    /// At most this many calls at a time go to the transport; the others wait their turn, in order.
    case limited(Int)

    var limit: Int? {
        switch self {
        case .unlimited: nil
        case .serial: 1
        case .limited(let count): max(1, count)
        }
    }
}
