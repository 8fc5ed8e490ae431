import Foundation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import Testing

// The README's usage examples, verbatim between the snippet markers (ReadmeSnippetTests checks that), run
// against image_server over the default URLSession transport.

// snippet: basic-models
struct PostCreateModel: Codable, Sendable {
    let userId: Int
    let title: String
    let body: String
}

struct PostModel: Codable, Sendable {
    let id: Int
    let userId: Int
    let title: String
    let body: String
}
// end snippet

// snippet: interceptor-types
struct LogInterceptor: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        print("sending request \(request)")
        let response = try await execution(request)
        print("got response \(response.status)")
        return response
    }
}

struct DeviceIdInjector: RestingInterceptor {
    func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
        var request = request
        request.headers["device-id"] = DeviceInfo.identifier
        return try await execution(request)
    }
}
// end snippet

// snippet: custom-http-client-type
/// Answers every request from canned bodies, without a network: handy for previews and offline demos.
struct CannedHTTPClient: HTTPClient {
    let bodies: [String: Data]  // by URL path

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        guard let body = bodies[request.url.path] else { return HTTPDataResponse(status: 404, url: request.url) }
        progress(TransferProgress(bytesReceived: Int64(body.count), totalBytesToReceive: Int64(body.count)))
        return HTTPDataResponse(
            status: 200, headers: ["Content-Type": "application/json"], body: ResponseBody(body), url: request.url)
    }
}
// end snippet

// snippet: api-error-type
struct APIError: Decodable, Sendable {
    let error: String
    let status: Int
}
// end snippet

@Suite("README examples, against image_server over the default transport")
struct ReadmeExamples {
    let server: LocalServer
    var baseUrl: String { server.baseURL }

    init() async throws { server = try await LocalServer.sharedImageServer.value }

    /// Runs `example` with its `print` output collected.
    private func run(_ example: () async throws -> Void) async throws -> Collector<String> {
        let output = Collector<String>()
        try await ExampleOutput.$lines.withValue(output) { try await example() }
        return output
    }

    @Test("a client made without a transport uses the default one (CurlClient on Linux, URLSession elsewhere)")
    func defaultClient() {
        // snippet: client
        let restingClient = RestingClient(baseUrl: "http://127.0.0.1:9000")
        // end snippet
        #expect(restingClient.httpClient as AnyObject === RestingClient.defaultTransport as AnyObject)
        #expect(restingClient.baseUrl == "http://127.0.0.1:9000")
    }

    @Test("the API as functions: create, read and delete a post, each call returning its body")
    func endpointFunctions() async throws {
        let restingClient = RestingClient(baseUrl: baseUrl)
        let output = try await run {
            // snippet: endpoint-functions
            enum Posts {
                static let create = Endpoint<PostCreateModel, PostModel>(.post, "/posts", encoding: .json)
                static func post(_ id: Int) -> Endpoint<Nothing, PostModel> { Endpoint(.get, "/posts/\(id)") }
                static func delete(_ id: Int) -> Endpoint<Nothing, Nothing> { Endpoint(.delete, "/posts/\(id)") }
            }

            let draft = PostCreateModel(userId: 1, title: "Hello world", body: "Some awesome message")
            let created = try await restingClient.call(Posts.create, body: draft)
            let post = try await restingClient.call(Posts.post(created.id))
            print("Read post \(post.id): \(post.title)")
            try await restingClient.call(Posts.delete(post.id))
            // end snippet
            await #expect(throws: RestingError.self) { _ = try await restingClient.call(Posts.post(created.id)) }
        }
        #expect(output.all.contains { $0.hasPrefix("Read post ") && $0.hasSuffix(": Hello world") })
    }

    @Test("basic example: create a post with done/catch, with await, and with send")
    func basicExample() async throws {
        let restingClient = RestingClient(baseUrl: baseUrl)
        let output = try await run {
            // snippet: basic-endpoint
            let createPostEndpoint = Endpoint<PostCreateModel, PostModel>(.post, "/posts", encoding: .json)
            // end snippet
            // snippet: basic-perform
            let postCreateModel = PostCreateModel(userId: 1, title: "Hello world", body: "Some awesome message")
            let request = RestingRequest(endpoint: createPostEndpoint, body: postCreateModel)
            restingClient.perform(request).done { response in
                print("Headers: \(response.headers)")
                let post = response.body
                print("Created post with id: \(post.id)")
            }.catch { error in
                print("An error occurred: \(error)")
            }
            // end snippet
            // snippet: basic-await
            let post = try await restingClient.perform(request).value.body
            print("Created post with id: \(post.id)")
            // end snippet
            // snippet: basic-send
            let created = try await restingClient.send(request)
            print("Created post with id: \(created.body.id), status \(created.status)")
            // end snippet
        }
        await output.wait { $0.filter { $0.hasPrefix("Created post with id: ") }.count == 3 }
        #expect(output.all.contains { $0.hasPrefix("Created post with id: ") && $0.hasSuffix(", status 201") })
        #expect(!output.all.contains { $0.hasPrefix("An error occurred") })
        #expect(output.all.contains { $0.hasPrefix("Headers: ") && $0.contains("application/json") })
    }

    @Test("responses with no content: an optional response is nil for an empty body")
    func emptyResponses() async throws {
        let restingClient = RestingClient(baseUrl: baseUrl)
        let output = try await run {
            // snippet: optional-response
            let createPostEndpoint = Endpoint<PostCreateModel, PostModel?>(.post, "/posts", encoding: .json)
            let postCreateModel = PostCreateModel(userId: 1, title: "Hello world", body: "Some awesome message")
            let request = RestingRequest(endpoint: createPostEndpoint, body: postCreateModel)
            restingClient.perform(request).done { response in
                print("Headers: \(response.headers)")
                if let post = response.body {
                    print("Created post with id: \(post.id)")
                } else {
                    print("Empty body")
                }
            }.catch { error in
                print("An error occurred: \(error)")
            }
            // end snippet
        }
        await output.wait { $0.contains { $0.hasPrefix("Created post with id: ") } }

        for status in [200, 204] {
            let emptyEndpoint = Endpoint<Nothing, PostModel?>(.get, "/empty/\(status)", encoding: .query)
            #expect(try await restingClient.perform(RestingRequest(endpoint: emptyEndpoint)).value.body == nil)
        }
        let deleteEndpoint = Endpoint<Nothing, Nothing>(.delete, "/posts/{{id}}")
        let deleted = try await restingClient.perform(
            RestingRequest(endpoint: deleteEndpoint, pathVariables: ["id": 10])
        ).value
        #expect(deleted.status == 204)
    }

    @Test("path variables are expanded and encoded")
    func pathVariables() async throws {
        let restingClient = RestingClient(baseUrl: baseUrl)
        let output = try await run {
            // snippet: path-variables
            let getPostEndpoint = Endpoint<Nothing, PostModel>(.get, "/posts/{{post_id}}")
            let request = RestingRequest(endpoint: getPostEndpoint, body: Nothing(), pathVariables: ["post_id": 1])

            restingClient.perform(request).done { response in
                print("Got post: \(response.body)")
            }.catch { error in
                print("An error occurred: \(error)")
            }
            // end snippet
        }
        await output.wait { !$0.isEmpty }
        #expect(output.all.first?.hasPrefix("Got post: PostModel(id: 1, userId: 1") == true)
    }

    @Test("interceptors: requests pass in order, so the logger sees the injected header")
    func interceptors() async throws {
        let output = try await run {
            // snippet: interceptor-client
            let restingClient = RestingClient(baseUrl: baseUrl, interceptors: [DeviceIdInjector(), LogInterceptor()])
            // end snippet
            let echo = Endpoint<Nothing, EchoedRequest>(.get, "/echo")
            let echoed = try await restingClient.perform(RestingRequest(endpoint: echo)).value.body
            #expect(echoed.values(of: "device-id") == ["device-1234"])
        }
        #expect(output.all.first?.contains("device-id: device-1234") == true)
        #expect(output.all.last == "got response 200")
    }

    @Test("a custom HTTPClient replaces the transport")
    func customHTTPClient() async throws {
        let post = PostModel(id: 1, userId: 1, title: "Canned", body: "From memory")
        // snippet: custom-http-client
        let httpClient = CannedHTTPClient(bodies: ["/posts/1": try JSONEncoder().encode(post)])
        let restingClient = RestingClient(baseUrl: "https://example.com", httpClient: httpClient)
        // end snippet
        let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}")
        #expect(
            try await restingClient.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 1])).value.body
                .title == "Canned")
        await #expect(throws: RestingError.self) {
            try await restingClient.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": 2])).value
        }
    }

    @Test("always-on headers and path variables from providers")
    func providers() async throws {
        // snippet: header-provider
        let headerProvider = RestingHeaderProvider(providers: ["device-id": { DeviceInfo.identifier }])

        // Or

        headerProvider.addHeader(key: "device-id") { DeviceInfo.identifier }

        // Or

        if let deviceId = DeviceInfo.identifier {
            headerProvider.addHeader(key: "device-id", value: deviceId)
        }

        let configuration = RestingRequestConverter.Configuration(headerProvider: headerProvider)
        let requestConverter = RestingRequestConverter(configuration: configuration)
        // end snippet
        let headerClient = RestingClient(baseUrl: baseUrl, requestConverter: requestConverter)
        let echo = Endpoint<Nothing, EchoedRequest>(.get, "/echo")
        let echoed = try await headerClient.perform(RestingRequest(endpoint: echo)).value.body
        #expect(echoed.values(of: "device-id") == ["device-1234"])

        do {
            // snippet: path-variable-provider
            let pathVariableProvider = RestingPathVariableProvider(providers: ["userId": { AuthManager.user?.id }])

            // Or

            pathVariableProvider.addVariable(key: "userId") { AuthManager.user?.id }

            // Or

            if let userId = AuthManager.user?.id {
                pathVariableProvider.addVariable(key: "userId", value: userId)
            }

            let configuration = RestingRequestConverter.Configuration(pathVariableProvider: pathVariableProvider)
            let requestConverter = RestingRequestConverter(configuration: configuration)
            // end snippet
            let client = RestingClient(baseUrl: baseUrl, requestConverter: requestConverter)
            let info = Endpoint<Nothing, EchoedRequest>(.get, "/echo/users/{{userId}}/info")
            #expect(try await client.perform(RestingRequest(endpoint: info)).value.body.path == "/echo/users/1/info")
            let overridden = RestingRequest(endpoint: info, pathVariables: ["userId": 2])
            #expect(try await client.perform(overridden).value.body.path == "/echo/users/2/info")
        }
    }

    @Test("errors: a 404 carries the API's typed error")
    func typedErrors() async throws {
        let restingClient = RestingClient(baseUrl: baseUrl)
        let output = try await run {
            // snippet: typed-error
            let getPostEndpoint = Endpoint<Nothing, PostModel>(.get, "/posts/{{post_id}}")
            do {
                _ = try await restingClient.perform(
                    RestingRequest(endpoint: getPostEndpoint, pathVariables: ["post_id": 999])
                ).value
            } catch RestingError.httpError(let error) where error.status == 404 {
                let apiError = try error.decodeBody(as: APIError.self)
                print("Not found: \(apiError.error)")
            }
            // end snippet
        }
        #expect(output.all == ["Not found: post 999 not found"])
    }

    @Test("cancellation: cancelling the promise ends the call with .cancelled")
    func cancellation() async throws {
        let restingClient = RestingClient(baseUrl: baseUrl)
        let output = try await run {
            // snippet: cancellation
            let slowEndpoint = Endpoint<Nothing, Nothing>(.get, "/delay/{{ms}}")
            let promise = restingClient.perform(RestingRequest(endpoint: slowEndpoint, pathVariables: ["ms": 30_000]))
            promise.cancel()
            do {
                _ = try await promise.value
            } catch RestingError.cancelled {
                print("Cancelled")
            }
            // end snippet
        }
        #expect(output.all == ["Cancelled"])
    }
}

/// What image_server's `/echo` returns, in part.
struct EchoedRequest: Decodable, Sendable {
    let method: String
    let path: String
    let headers: [[String]]

    /// The values of a header, whatever case the transport gave its name (URLSession capitalises names).
    func values(of name: String) -> [String] {
        headers.filter { $0[0].lowercased() == name }.map { $0[1] }
    }
}
