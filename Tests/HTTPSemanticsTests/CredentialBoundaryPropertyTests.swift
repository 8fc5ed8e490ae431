import Foundation
import RestingAuthentication
import RestingCore
import RestingServerHarness
import RestingTestSupport
import Testing

/// The credential boundary as a property: random chains of application and network interceptors — ones that add
/// a token, copy every credential to another header, re-add a key on every hop, move the request to another
/// origin — over random redirect chains across three origins never deliver a credential to an origin it was not
/// issued for. Every credential here is issued for the API's origin (the first), so no request the server
/// records at another origin may carry one.
@Suite("The credential boundary as a property", .timeLimit(.minutes(5)))
struct CredentialBoundaryPropertyTests {
    /// Copies every field that carries a credential to `X-Forwarded-<name>`, keeping it a credential.
    struct CredentialCopier: RestingInterceptor {
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            var request = request
            for field in request.headers where field.carriesCredential && !field.name.hasPrefix("X-Forwarded-") {
                request.headers.add(name: "X-Forwarded-\(field.name)", value: field.value, sensitive: true)
            }
            return try await execution(request)
        }
    }

    /// Sets an API key (a name RestingKit knows as a credential) on every request it sees, every hop included.
    struct KeyAdder: RestingInterceptor {
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            var request = request
            request.headers["X-Api-Key"] = "k3y"
            return try await execution(request)
        }
    }

    /// Sends the request to another origin, same path and query (a careless staging switch).
    struct OriginMover: RestingInterceptor {
        let target: String
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            var request = request
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            let destination = URLComponents(string: target)
            components?.port = destination?.port
            if let moved = components?.url { request.url = moved }
            return try await execution(request)
        }
    }

    @Test("no credential reaches another origin, whatever the interceptors and redirects", arguments: Transport.network)
    func credentialsStayWithinTheirOrigin(_ transport: Transport) async throws {
        let server = try await RecordingServer.shared.value
        let api = server.origins[0]
        var random = SeededGenerator(seed: transport == .curl ? 24 : 42)
        let provider = RestingHeaderProvider()
        provider.addHeader(key: "X-Tenant-Secret", value: "tenant", sensitive: true)
        for trial in 0..<40 {
            let tag = "property-\(transport)-\(trial)"
            func pool() -> [any RestingInterceptor] {
                [
                    AuthInterceptor.bearer(token: "t0k3n"), CredentialCopier(), KeyAdder(),
                    OriginMover(target: server.origins.randomElement(using: &random) ?? api),
                ]
            }
            let interceptors = Array(pool().shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)))
            let network = Array(pool().shuffled(using: &random).prefix(Int.random(in: 0...3, using: &random)))
            // Up to four redirects over the three origins (from the API first), then a 200 anywhere.
            let hops = (0..<Int.random(in: 0...4, using: &random)).map { _ in
                (
                    origin: server.origins.randomElement(using: &random) ?? api,
                    status: ["301", "302", "303", "307", "308"].randomElement(using: &random) ?? "302"
                )
            }
            var next = "\(server.origins.randomElement(using: &random) ?? api)/\(tag)/end"
            for (index, hop) in hops.enumerated().dropFirst().reversed() {
                next = RecordingServer.url(hop.origin, "/\(tag)/hop\(index)", ["status": hop.status, "location": next])
            }
            let first =
                hops.first.map {
                    [URLQueryItem(name: "status", value: $0.status), URLQueryItem(name: "location", value: next)]
                } ?? []
            let client = RestingClient(
                baseUrl: api, httpClient: try transport.networkClient,
                requestConverter: RestingRequestConverter(configuration: .init(headerProvider: provider)),
                interceptors: interceptors, networkInterceptors: network)
            let start = Endpoint<Nothing, Data>(.get, "/\(tag)/start", encoding: .query)
            let request = RestingRequest(
                endpoint: start, headers: ["Authorization": "Basic cmVxdWVzdDpvd24="],
                queryItems: first)
            // Redirect limits, loops or a moved request's failure are all fine: only what was sent matters.
            _ = try? await client.perform(request).value
            let log = try await server.log(tag)
            #expect(!log.isEmpty, "trial \(trial) reached the server")
            for record in log where record.origin != api {
                for name in CredentialBoundaryTests.credentialNames + [
                    "X-Forwarded-X-Api-Key", "X-Forwarded-X-Tenant-Secret",
                ] {
                    #expect(
                        record.values(of: name).isEmpty,
                        "trial \(trial): \(name) reached \(record.origin) \(record.target); interceptors \(interceptors.map { type(of: $0) }), network \(network.map { type(of: $0) })"
                    )
                }
            }
        }
    }
}
