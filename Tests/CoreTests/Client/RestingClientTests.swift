import Foundation
import RestingTesting
import Testing

@testable import RestingCore

@Suite("Responses: status check and decoding")
struct RestingClientTests {
    let stub = StubHTTPClient()
    var client: RestingClient { makeClient(stub) }

    @Test("a 2xx response is decoded, with status and headers kept")
    func decodesSuccess() async throws {
        stub.register(.get, "/posts/1", try .json(samplePost))
        let response = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query))
        ).value
        #expect(response.body == samplePost)
        #expect(response.status == 200)
        #expect(response.headers["content-type"] == "application/json")
    }

    @Test("a status outside 2xx fails with an HTTPError carrying status, headers and the typed API error")
    func non2xxIsAnHTTPError() async throws {
        let body = Data(#"{"error":"post 9 not found","status":404}"#.utf8)
        stub.register(.get, "/posts/9", .status(404, headers: ["X-Request-Id": "r1"], body: body))
        let error = await restingError {
            try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/9", encoding: .query))
            ).value
        }
        guard case .httpError(let httpError) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(httpError.status == 404)
        #expect(httpError.headers["x-request-id"] == "r1")
        #expect(httpError.body == body)
        #expect(try httpError.decodeBody(as: APIError.self) == APIError(error: "post 9 not found", status: 404))
        #expect(throws: RestingError.self) { try httpError.decodeBody(as: Post.self) }
    }

    @Test(
        "an optional response is nil exactly when the body is empty, for any accepted status",
        arguments: [200, 201, 204])
    func optionalIsNilForEmptyBodies(status: Int) async throws {
        stub.register(.get, "/maybe", .status(status))
        let endpoint = Endpoint<Nothing, Post?>(.get, "/maybe", encoding: .query)
        #expect(try await client.perform(RestingRequest(endpoint: endpoint)).value.body == nil)
    }

    @Test("an optional response decodes a non-empty body")
    func optionalDecodesABody() async throws {
        stub.register(.get, "/maybe", try .json(samplePost))
        let endpoint = Endpoint<Nothing, Post?>(.get, "/maybe", encoding: .query)
        #expect(try await client.perform(RestingRequest(endpoint: endpoint)).value.body == samplePost)
    }

    @Test("an empty body is nil even on a 404 when the client accepts 404")
    func optionalOnAcceptedNotFound() async throws {
        stub.register(.get, "/maybe", .status(404))
        let lenient = RestingClient(baseUrl: baseURL, httpClient: stub, acceptedStatusCodes: 200..<500)
        let endpoint = Endpoint<Nothing, Post?>(.get, "/maybe", encoding: .query)
        #expect(try await lenient.perform(RestingRequest(endpoint: endpoint)).value.body == nil)
    }

    @Test("empty bodies on 200, 204 and 404 for each response kind", arguments: [200, 204, 404])
    func emptyBodiesForEachKind(status: Int) async throws {
        stub.register(.get, "/empty", .status(status))
        let required = await restingError {
            try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/empty", encoding: .query))
            ).value
        }
        let optional = await Result {
            try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Post?>(.get, "/empty", encoding: .query))
            ).value.body
        }
        let nothing = await Result {
            try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/empty", encoding: .query))
            ).value.body
        }
        if status == 404 {
            for error in [required, optional.failure, nothing.failure] {
                guard case .httpError(let httpError) = error else {
                    Issue.record("expected an HTTP error, got \(String(describing: error))")
                    continue
                }
                #expect(httpError.status == 404 && httpError.body.isEmpty)
            }
        } else {
            guard case .decodingFailed(let type, _, let body) = required else {
                Issue.record("a required body must fail to decode from nothing, got \(String(describing: required))")
                return
            }
            #expect(type == "Post" && body.isEmpty)
            #expect(try optional.get() == nil)
            #expect(try nothing.get() == Nothing())
        }
    }

    @Test("Nothing ignores whatever body comes back, and Data returns it raw")
    func nothingAndData() async throws {
        stub.register(.get, "/text", .status(200, body: Data("not json".utf8)))
        _ = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/text", encoding: .query))
        ).value
        let data = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/text", encoding: .query))
        ).value.body
        #expect(data == Data("not json".utf8))
    }

    @Test("a body that does not decode fails with the body kept")
    func decodingFailureKeepsTheBody() async throws {
        let body = Data(#"{"id":"not a number"}"#.utf8)
        stub.register(.get, "/posts/1", .status(200, body: body))
        let error = await restingError {
            try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Post>(.get, "/posts/1", encoding: .query))
            ).value
        }
        guard case .decodingFailed("Post", _, let kept) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(kept == body)
    }

    @Test("a transport failure reaches the caller typed, with the transport's code")
    func transportFailure() async throws {
        let failure = TransportError(kind: .timedOut, code: 28, domain: "CURLcode", message: "timeout")
        stub.register(.get, "/slow", .failure(.transportFailed(failure)))
        let error = await restingError {
            try await client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/slow", encoding: .query))
            ).value
        }
        guard case .transportFailed(let received) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(received == failure)
    }

    @Test("an unstubbed request fails with the registered routes listed")
    func unstubbedRequest() async throws {
        stub.register(.get, "/a", .status(200))
        let error = await restingError {
            try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/b", encoding: .query)))
                .value
        }
        #expect(error?.description.contains("no stub for GET /b; registered: GET /a") == true)
    }

    @Test("cancelling the promise cancels the transfer promptly")
    func cancellingThePromise() async throws {
        stub.register(.get, "/slow", StubResponse.status(200).delayed(by: .seconds(60)))
        let promise = client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/slow", encoding: .query)))
        promise.cancel()
        let error = await restingError { try await promise.value }
        guard case .cancelled = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test("cancelling the task that awaits the promise cancels the transfer")
    func cancellingTheAwaitingTask() async throws {
        stub.register(.get, "/slow", StubResponse.status(200).delayed(by: .seconds(60)))
        let (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
        let waiter = Task {
            let promise = client.perform(
                RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/slow", encoding: .query)))
            startedContinuation.yield()
            return try await promise.value
        }
        for await _ in started { break }
        waiter.cancel()
        let error = await restingError { try await waiter.value }
        guard case .cancelled = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }
}

extension Result where Failure == any Error {
    /// The failure as a `RestingError`, if it is one.
    var failure: RestingError? {
        if case .failure(let error) = self { return error as? RestingError }
        return nil
    }
}
