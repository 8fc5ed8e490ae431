import Foundation
import RestingCore
import RestingTesting
import Testing

struct Post: Codable, Sendable, Equatable {
    let id: Int
    let userId: Int
    let title: String
    let body: String
}

struct PostCreateModel: Codable, Sendable {
    let userId: Int
    let title: String
    let body: String
}

struct APIError: Decodable, Equatable {
    let error: String
    let status: Int
}

let samplePost = Post(id: 1, userId: 1, title: "Hello", body: "World")
let baseURL = "https://api.example.com"

func makeClient(
    _ stub: StubHTTPClient, interceptors: [any RestingInterceptor] = [],
    converter: RestingRequestConverter = RestingRequestConverter()
) -> RestingClient {
    RestingClient(baseUrl: baseURL, httpClient: stub, requestConverter: converter, interceptors: interceptors)
}

/// The `RestingError` a call failed with; records an issue if it failed with something else or succeeded.
func restingError<T>(_ operation: () async throws -> T, sourceLocation: SourceLocation = #_sourceLocation) async
    -> RestingError?
{
    do {
        _ = try await operation()
        Issue.record("expected a RestingError, got a value", sourceLocation: sourceLocation)
    } catch let error as RestingError {
        return error
    } catch {
        Issue.record("expected a RestingError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Converts `request` with `converter` against `baseURL`.
func convert<Req, Res>(
    _ request: RestingRequest<Req, Res>, _ converter: RestingRequestConverter = RestingRequestConverter(),
    baseUrl: String = baseURL
) throws(RestingError) -> HTTPRequest {
    try converter.toHTTPRequest(request, baseUrl: baseUrl)
}
