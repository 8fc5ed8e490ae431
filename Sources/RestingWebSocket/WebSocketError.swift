import RestingCore

/// How a socket fails, as its engine keeps it: one of the call's failures (cancelled, a transport's), or one of
/// WebSocket's own. Comparable, so that the lifecycle's states are; ``thrown`` is what the user catches.
enum WebSocketError: Error, Equatable {
    case call(RestingError)
    case socket(WebSocketFailure)

    static let cancelled = WebSocketError.call(.cancelled)
    /// What a send or a ping meets once the socket is closing or closed.
    static let closed = WebSocketError.socket(WebSocketFailure(.closed, "the WebSocket is closing or closed"))

    /// `error` as the engine keeps it: a cancellation as `.cancelled`, anything else the transport threw as the
    /// connection lost.
    init(_ error: any Error) {
        switch error {
        case let error as WebSocketError: self = error
        case let error as RestingError: self = .call(error)
        case let failure as WebSocketFailure: self = .socket(failure)
        case is CancellationError: self = .cancelled
        default: self = .socket(WebSocketFailure(.connectionLost, String(describing: error)))
        }
    }

    /// The error the socket's reader, sender or pinger throws.
    var thrown: any Error {
        switch self {
        case .call(let error): error
        case .socket(let failure): failure
        }
    }
}
