/// How many calls of one ``RestingClient`` may be in flight at once (Malibu's `async`, `sync` and `limited`).
/// Calls beyond the limit wait in order of arrival; cancelling a waiting call removes it from the queue.
public enum ConcurrencyMode: Sendable, Equatable {
    case unlimited
    /// One call at a time.
    case serial
    case limited(Int)

    var limit: Int? {
        switch self {
        case .unlimited: nil
        case .serial: 1
        case .limited(let count): max(1, count)
        }
    }
}
