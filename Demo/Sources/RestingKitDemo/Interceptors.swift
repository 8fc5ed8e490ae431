import Foundation
import RestingKit

/// Adds a header to every request on its way out.
struct DeviceIdInjector: RestingInterceptor {
    let deviceId: String

    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        var request = request
        request.headers["device-id"] = deviceId
        return try await execution(request)
    }
}

/// Logs each exchange on one line, with its duration. Printing an `HTTPRequest` redacts credentials.
struct LogInterceptor: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        let started = ContinuousClock.now
        print("    → \(request.description.replacingOccurrences(of: "\n", with: "\n      "))")
        let response = try await execution(request)
        let elapsed = (ContinuousClock.now - started).formatted(.units(allowed: [.milliseconds], width: .abbreviated))
        let size = response.body.data.map { "\($0.count) bytes" } ?? "a streamed body"
        print("    ← \(response.status), \(size) in \(elapsed)")
        return response
    }
}
