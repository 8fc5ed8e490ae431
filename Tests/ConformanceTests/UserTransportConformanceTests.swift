import Foundation
import RestingCore
import RestingCurl
import RestingTransportConformance
import Testing

// A transport as a user of RestingKit would write one, checked by the conformance kit through its public
// product only (no @testable import): the README's custom-transport section shows this file. The whole suite run
// serially takes about a minute, four and a half under AddressSanitizer on two cores: hence its ten-minute limit.

// snippet: conformance-kit
/// A user's transport: tags every request with a trace id, and delegates the wire to `CurlClient`.
struct TracingTransport: HTTPClient {
    let wire: CurlClient

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        var request = request
        request.headers["X-Trace-Id"] = UUID().uuidString
        return try await wire.send(request, progress: progress)
    }

    var executor: (any TaskExecutor)? { wire.executor }
}

@Test("TracingTransport passes every conformance check", .timeLimit(.minutes(10)))
func tracingTransportConforms() async throws {
    let suite = try await TransportConformance(name: "TracingTransport", capabilities: .init()) { settings in
        var configuration = CurlConfiguration()
        if let idle = settings.idleTimeout { configuration.idleTimeout = idle }
        if let connect = settings.connectTimeout { configuration.connectTimeout = connect }
        if let limit = settings.maximumResponseSize { configuration.maximumResponseSize = limit }
        if let rate = settings.minimumTransferRate { configuration.minimumTransferRate = rate }
        return TracingTransport(wire: try CurlClient(configuration: configuration))
    }
    try await suite.runAll()  // or one check per parametrised test: `suite.run(check)`
}
// end snippet
