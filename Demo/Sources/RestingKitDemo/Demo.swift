import Foundation
import RestingKit

/// The demo's steps, each printing what it does and checking what it gets.
struct Demo {
    struct UnexpectedResult: Error, CustomStringConvertible {
        let description: String
    }

    let baseUrl: String
    let transport: any HTTPClient
    let transportName: String

    /// A client on the demo's transport.
    func client(
        converter: RestingRequestConverter = RestingRequestConverter(), interceptors: [any RestingInterceptor] = [],
        events: EventListenerFactory? = nil
    ) -> RestingClient {
        RestingClient(
            baseUrl: baseUrl, httpClient: transport, requestConverter: converter, interceptors: interceptors,
            eventListener: events)
    }

    func run() async throws {
        print("RestingKit demo against \(baseUrl), on \(transportName)")
        try await typedCRUD()
        try await pathTemplates()
        try await providers()
        try await interceptors()
        try await typedErrors()
        try await emptyResponses()
        try await cancellationAndTimeouts()
        try await interceptorLibrary()
        try await siblingFeatures()
        try await streaming()
        try await responseStreaming()
        try await httpSemantics()
    }

    func section(_ title: String) { print("\n== \(title)") }

    func check(_ condition: Bool, _ message: String) throws {
        guard condition else { throw UnexpectedResult(description: message) }
    }

    private func typedCRUD() async throws {
        section("1. Typed CRUD on /posts")
        let client = client()
        let posts = try await client.perform(RestingRequest(endpoint: API.listPosts, body: PostFilter(userId: 1))).value
            .body
        print("  GET /posts?userId=1 → \(posts.count) posts, first: \"\(posts.first?.title ?? "-")\"")

        let created = try await client.perform(
            RestingRequest(
                endpoint: API.createPost,
                body: PostCreateModel(userId: 1, title: "Hello world", body: "Some awesome message"))
        ).value
        let id = created.body.id
        print("  POST /posts → \(created.status), created post \(id) (Location: \(created.headers["Location"] ?? "-"))")

        let patched = try await client.perform(
            RestingRequest(
                endpoint: API.patchPost, body: PostPatch(title: "Hello again"), pathVariables: ["post_id": id])
        ).value.body
        print("  PATCH /posts/\(id) → title is now \"\(patched.title)\"")

        let replaced = try await client.perform(
            RestingRequest(
                endpoint: API.replacePost, body: PostCreateModel(userId: 2, title: "Replaced", body: "New body"),
                pathVariables: ["post_id": id])
        ).value.body
        print("  PUT /posts/\(id) → belongs to user \(replaced.userId), title \"\(replaced.title)\"")

        // The same call, PromiseKit style.
        let fetched = try await client.perform(RestingRequest(endpoint: API.getPost, pathVariables: ["post_id": id]))
            .map(\.body)
            .get { post in print("  GET /posts/\(id) → \"\(post.title)\" (via map/get)") }
            .value
        try check(fetched.title == "Replaced", "the post should have been replaced")

        let deleted = try await client.perform(RestingRequest(endpoint: API.deletePost, pathVariables: ["post_id": id]))
            .value
        print("  DELETE /posts/\(id) → \(deleted.status), body ignored (Nothing)")
    }

    private func pathTemplates() async throws {
        section("2. Path templates: values are encoded as one segment, missing ones are errors")
        let client = client()
        let echoed = try await client.perform(
            RestingRequest(endpoint: API.echoFile, pathVariables: ["userId": 7, "name": "../secrets?x=1#top"])
        ).value.body
        print("  name = \"../secrets?x=1#top\" → the server saw the path \(echoed.path)")
        try check(echoed.path == "/echo/users/7/files/..%2Fsecrets%3Fx%3D1%23top", "the value must stay in one segment")

        do {
            _ = try await client.perform(RestingRequest(endpoint: API.echoFile, pathVariables: ["userId": 7])).value
            throw UnexpectedResult(description: "a missing variable must fail")
        } catch RestingError.missingPathVariable(let name, let template) {
            print("  without `name` → missingPathVariable(\(name), \(template))")
        }
    }

    private func providers() async throws {
        section("3. Always-on headers and path variables (providers)")
        let headerProvider = RestingHeaderProvider(providers: ["device-id": { "demo-device" }])
        let pathVariableProvider = RestingPathVariableProvider(providers: ["userId": { 42 }])
        let converter = RestingRequestConverter(
            configuration: .init(headerProvider: headerProvider, pathVariableProvider: pathVariableProvider))
        let client = client(converter: converter)
        let echoed = try await client.perform(
            RestingRequest(endpoint: API.echoFile, pathVariables: ["name": "report.pdf"])
        ).value.body
        print("  path \(echoed.path), device-id: \(echoed.values(of: "device-id").joined())")
        try check(echoed.path == "/echo/users/42/files/report.pdf", "the provider's userId should fill the template")

        let overridden = try await client.perform(
            RestingRequest(
                endpoint: API.echoFile, headers: ["device-id": "request-device"],
                pathVariables: ["userId": 1, "name": "a"])
        ).value.body
        print(
            "  the request's own values win: path \(overridden.path), device-id: \(overridden.values(of: "device-id").joined())"
        )
    }

    private func interceptors() async throws {
        section("4. Interceptors: DeviceIdInjector, then LogInterceptor (credentials redacted)")
        let client = client(interceptors: [DeviceIdInjector(deviceId: "injected-42"), LogInterceptor()])
        let echo = Endpoint<Nothing, EchoedRequest>(.get, "/echo", encoding: .query)
        let echoed = try await client.perform(
            RestingRequest(endpoint: echo, headers: ["Authorization": "Bearer s3cr3t-token"])
        ).value.body
        try check(echoed.values(of: "device-id") == ["injected-42"], "the injected header should reach the server")
        print(
            "  the server received device-id: \(echoed.values(of: "device-id").joined()); the log above shows no token")
    }

    private func typedErrors() async throws {
        section("5. Typed API errors")
        let client = client()
        do {
            _ = try await client.perform(RestingRequest(endpoint: API.getPost, pathVariables: ["post_id": 999])).value
            throw UnexpectedResult(description: "post 999 should not exist")
        } catch RestingError.httpError(let error) {
            let apiError = try error.decodeBody(as: APIError.self)
            print("  GET /posts/999 → HTTP \(error.status): \(apiError.error)")
        }
        let invalid = Endpoint<PostPatch, PostModel>(.post, "/posts", encoding: .json)
        do {
            _ = try await client.perform(RestingRequest(endpoint: invalid, body: PostPatch(title: "no user"))).value
            throw UnexpectedResult(description: "an incomplete post should be refused")
        } catch RestingError.httpError(let error) {
            print(
                "  POST /posts without userId → HTTP \(error.status): \(try error.decodeBody(as: APIError.self).error)")
        }
    }

    private func emptyResponses() async throws {
        section("6. Empty responses: an optional response is nil for an empty body")
        let client = client()
        for status in [200, 204] {
            let body = try await client.perform(
                RestingRequest(endpoint: API.maybeEmpty, pathVariables: ["status": status])
            ).value.body
            print("  GET /empty/\(status) as PostModel? → \(body.map { "\($0)" } ?? "nil")")
            try check(body == nil, "an empty body should be nil")
        }
    }

    private func cancellationAndTimeouts() async throws {
        section("7. Cancellation and timeouts")
        let client = client()
        let promise = client.perform(RestingRequest(endpoint: API.slow, pathVariables: ["ms": 30_000]))
        promise.cancel()
        do {
            _ = try await promise.value
            throw UnexpectedResult(description: "the call should have been cancelled")
        } catch RestingError.cancelled {
            print("  a 30 s request, cancelled → RestingError.cancelled")
        }

        let started = ContinuousClock.now
        do {
            _ = try await client.perform(
                RestingRequest(endpoint: API.slow, pathVariables: ["ms": 5_000], timeout: .milliseconds(500))
            ).value
            throw UnexpectedResult(description: "the call should have timed out")
        } catch RestingError.transportFailed(let failure) where failure.kind == .timedOut {
            let elapsed = (ContinuousClock.now - started).formatted(
                .units(allowed: [.milliseconds], width: .abbreviated))
            print("  a 5 s request with a 500 ms timeout → timedOut after \(elapsed)")
        }
    }
}
