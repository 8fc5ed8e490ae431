import RestingCore
import RestingWebSocket

/// Closes `target` (with 1001 and "kill switch") from inside every call it intercepts, then lets the call go on: how
/// the WebSocket tests close a socket from inside another call.
public struct SocketClosingInterceptor: RestingInterceptor {
    package let target: Locked<WebSocket?>

    package init(target: Locked<WebSocket?>) { self.target = target }

    public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        if let socket = target.withLock({ $0 }) { await socket.close(code: .goingAway, reason: "kill switch") }
        return try await execution(request)
    }
}
