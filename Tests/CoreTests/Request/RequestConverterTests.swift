import Foundation
import RestingTesting
import Testing

@testable import RestingCore

@Suite("Request converter")
struct RequestConverterTests {
    let getPost = Endpoint<Nothing, Post>(.get, "/posts/{{post_id}}", encoding: .query)
    let createPost = Endpoint<PostCreateModel, Post>(.post, "/posts", encoding: .json)
    let newPost = PostCreateModel(userId: 1, title: "Hello", body: "World")

    @Test("a base URL's path is kept, with a context path between it and the endpoint path")
    func baseURLPathIsKept() throws {
        let request = RestingRequest(endpoint: getPost, pathVariables: ["post_id": 3])
        #expect(try convert(request, baseUrl: "https://h/v2").url.absoluteString == "https://h/v2/posts/3")
        #expect(try convert(request, baseUrl: "https://h/v2/").url.absoluteString == "https://h/v2/posts/3")
        let converter = RestingRequestConverter(configuration: .init(contextPath: "/api/"))
        #expect(
            try convert(request, converter, baseUrl: "https://h/v2").url.absoluteString == "https://h/v2/api/posts/3")
    }

    @Test("an absolute URL as the path replaces the base URL")
    func absoluteURLsAreHonoured() throws {
        let endpoint = Endpoint<Nothing, Nothing>(.get, "https://cdn.example.org/files/{{name}}", encoding: .query)
        let request = RestingRequest(endpoint: endpoint, pathVariables: ["name": "a b"])
        #expect(try convert(request).url.absoluteString == "https://cdn.example.org/files/a%20b")
    }

    @Test("a path without variables is parsed once per base URL, and follows a change of base URL")
    func literalPathsFollowTheBaseURL() throws {
        let converter = RestingRequestConverter(configuration: .init(contextPath: "/v1"))
        let request = RestingRequest(endpoint: createPost, body: newPost)
        for _ in 0..<2 {
            #expect(
                try convert(request, converter, baseUrl: "https://a.example").url.absoluteString
                    == "https://a.example/v1/posts")
            #expect(
                try convert(request, converter, baseUrl: "https://b.example/api/").url.absoluteString
                    == "https://b.example/api/v1/posts")
        }
        // Query items make the address the request's own: never taken from (or kept in) the cache.
        let search = Endpoint<[String: String], Nothing>(.get, "/search", encoding: .query)
        let token = RestingRequest(endpoint: search, body: ["token": "secret"])
        #expect(try convert(token, converter).url.absoluteString == "https://api.example.com/v1/search?token=secret")
        #expect(
            try convert(RestingRequest(endpoint: search, body: [:]), converter).url.absoluteString
                == "https://api.example.com/v1/search")
    }

    @Test(
        "a converted request knows its URL's origin key, which a path's values cannot move, and forgets it with its URL",
        arguments: [
            ("https://API.example.com:443/v1", "/posts"), ("http://user@h.example/", "/records/{{id}}"),
            ("https://h.example", "{{id}}/x"), ("https://h.example", "https://cdn.example.org:8443/f/{{id}}"),
            ("http://127.0.0.1:8080", "/search?q={{id}}"),
        ])
    func originKeyOfConvertedRequests(baseUrl: String, path: String) throws {
        let converter = RestingRequestConverter()
        for id in ["3", "@evil.example", "//evil.example", "evil.example:1/"] {
            let endpoint = Endpoint<Nothing, Nothing>(.get, path)
            var request = try convert(
                RestingRequest(endpoint: endpoint, pathVariables: ["id": id]), converter, baseUrl: baseUrl)
            #expect(request.originKey == Origin.key(of: request.url), "\(baseUrl) \(path) \(id): \(request.url)")
            request.url = try #require(URL(string: "https://elsewhere.example/x"))
            #expect(request.originKey == "https://elsewhere.example:443")
        }
    }

    @Test("a path with interpolated values is never kept in the cache of literal URLs: its values are one call's")
    func interpolatedPathsAreNotCached() throws {
        let converter = RestingRequestConverter()
        func record(_ id: String) -> Endpoint<Nothing, Nothing> { Endpoint(.get, "/records/\(id)") }
        #expect(try convert(RestingRequest(endpoint: record("tok3n")), converter).url.path == "/records/tok3n")
        #expect(converter.literalURLs.count == 0)
        _ = try convert(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/records")), converter)
        #expect(converter.literalURLs.count == 1, "a literal path still is")
    }

    @Test("the cache of parsed literal URLs stays bounded however many base URLs pass through it")
    func literalURLCacheIsBounded() throws {
        let cache = LiteralURLCache()
        for index in 0..<(LiteralURLCache.capacity * 3) {
            let address = "https://h\(index).example/posts"
            let entry = try cache.url(baseUrl: "https://h\(index).example", path: "/posts") { () throws(RestingError) in
                guard let url = URL(string: address) else { throw .invalidURL(address, reason: "not a valid URL") }
                return url
            }
            #expect(entry.url.host == "h\(index).example")
            #expect(entry.originKey == "https://h\(index).example:443")
            #expect(cache.originKey(of: entry.url, onBase: "https://h\(index).example") == entry.originKey)
            #expect(cache.count <= LiteralURLCache.capacity)
            #expect(cache.baseCount <= LiteralURLCache.capacity)
        }
        // A failure is thrown, not cached: the next call builds again.
        var attempts = 0
        for _ in 0..<2 {
            #expect(throws: RestingError.self) {
                try cache.url(baseUrl: "x", path: "/y") { () throws(RestingError) -> URL in
                    attempts += 1
                    throw .invalidURL("x/y", reason: "not a valid URL")
                }
            }
        }
        #expect(attempts == 2)
    }

    @Test("an invalid base URL is a typed error")
    func invalidBaseURL() {
        let request = RestingRequest(endpoint: getPost, pathVariables: ["post_id": 1])
        #expect {
            try convert(request, baseUrl: "not a url")
        } throws: { error in
            guard case .invalidURL = error as? RestingError else { return false }
            return true
        }
    }

    @Test("a malformed template fails the request with the template in the error")
    func malformedTemplateFailsTheRequest() {
        let endpoint = Endpoint<Nothing, Nothing>(.get, "/posts/{{id", encoding: .query)
        #expect(throws: RestingError.self) { try convert(RestingRequest(endpoint: endpoint)) }
    }

    @Test("provider path variables fill the template; request values win; nil drops the variable")
    func pathVariableProviderPrecedence() throws {
        let provider = RestingPathVariableProvider(providers: ["user_id": { 7 }, "absent": { nil }])
        provider.addVariable(key: "post_id", value: 1)
        let converter = RestingRequestConverter(configuration: .init(pathVariableProvider: provider))
        let endpoint = Endpoint<Nothing, Nothing>(.get, "/users/{{user_id}}/posts/{{post_id}}", encoding: .query)

        #expect(try convert(RestingRequest(endpoint: endpoint), converter).url.path == "/users/7/posts/1")
        let overridden = RestingRequest(endpoint: endpoint, pathVariables: ["post_id": 99])
        #expect(try convert(overridden, converter).url.path == "/users/7/posts/99")

        let needsAbsent = Endpoint<Nothing, Nothing>(.get, "/x/{{absent}}", encoding: .query)
        #expect {
            try convert(RestingRequest(endpoint: needsAbsent), converter)
        } throws: { error in
            guard case .missingPathVariable("absent", "/x/{{absent}}") = error as? RestingError else { return false }
            return true
        }
    }

    @Test("provider headers are added; request headers win; nil drops the header")
    func headerProviderPrecedence() throws {
        let provider = RestingHeaderProvider(providers: ["X-Device": { "device-1" }, "X-Absent": { nil }])
        provider.addHeader(key: "X-Locale", value: "en")
        let converter = RestingRequestConverter(configuration: .init(headerProvider: provider))
        let request = RestingRequest(endpoint: getPost, headers: ["x-locale": "fr"], pathVariables: ["post_id": 1])
        let headers = try convert(request, converter).headers
        #expect(headers["X-Device"] == "device-1")
        #expect(headers["X-Locale"] == "fr")
        #expect(headers.values(for: "X-Locale").count == 1)
        #expect(!headers.contains("X-Absent"))
    }

    @Test("providers can be changed from many threads while requests are converted")
    func providersAreThreadSafe() async throws {
        let provider = RestingHeaderProvider()
        let converter = RestingRequestConverter(configuration: .init(headerProvider: provider))
        let request = RestingRequest(endpoint: getPost, pathVariables: ["post_id": 1])
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<200 {
                group.addTask {
                    provider.addHeader(key: "X-\(index % 10)", value: "\(index)")
                    let headers = try convert(request, converter).headers
                    try headers.validate()
                    if index % 3 == 0 { provider.removeHeader(key: "X-\(index % 10)") }
                }
            }
            try await group.waitForAll()
        }
    }

    @Test("JSON bodies get a Content-Type, and a caller's Content-Type is kept")
    func jsonContentType() throws {
        let request = RestingRequest(endpoint: createPost, body: newPost)
        let converted = try convert(request)
        #expect(converted.headers["Content-Type"] == "application/json")
        #expect(converted.headers["Accept"] == "application/json")
        let body = try converted.body.collectSynchronously()
        #expect(
            try JSONDecoder().decode([String: AnyCodable].self, from: body).keys.sorted() == [
                "body", "title", "userId",
            ])

        let custom = RestingRequest(
            endpoint: createPost, body: newPost, headers: ["content-type": "application/vnd.api+json"])
        let customHeaders = try convert(custom).headers
        #expect(customHeaders.values(for: "Content-Type") == ["application/vnd.api+json"])
    }

    @Test("a JSON body is the same bytes every time it is encoded")
    func jsonBodiesAreStable() throws {
        struct Wide: Codable, Sendable {
            let a, b, c, d, e, f, g, h: Int
            let nested: [String: Int]
        }
        let endpoint = Endpoint<Wide, Nothing>(.post, "/wide", encoding: .json)
        let value = Wide(a: 1, b: 2, c: 3, d: 4, e: 5, f: 6, g: 7, h: 8, nested: ["z": 1, "y": 2, "x": 3])
        let first = try convert(RestingRequest(endpoint: endpoint, body: value)).body.collectSynchronously()
        for _ in 0..<20 {
            #expect(try convert(RestingRequest(endpoint: endpoint, body: value)).body.collectSynchronously() == first)
        }
    }

    @Test("query encoding puts the body in the URL, before the request's own query items")
    func queryEncoding() throws {
        struct Search: Codable, Sendable {
            let term: String
            let tags: [String]
        }
        let endpoint = Endpoint<Search, Nothing>(.get, "/search?v=1", encoding: .query)
        let request = RestingRequest(
            endpoint: endpoint, body: Search(term: "a&b", tags: ["x"]),
            queryItems: [URLQueryItem(name: "page", value: "2")])
        let converted = try convert(request)
        #expect(converted.url.absoluteString == "https://api.example.com/search?v=1&term=a%26b&tags%5B%5D=x&page=2")
        #expect(converted.body.isEmpty)
        #expect(!converted.headers.contains("Content-Type"))
    }

    @Test("form encoding uses the query encoder for the body")
    func formEncoding() throws {
        struct Login: Codable, Sendable {
            let user: String
            let scopes: [String]
        }
        let endpoint = Endpoint<Login, Nothing>(.post, "/login", encoding: .formURLEncoded)
        let converted = try convert(RestingRequest(endpoint: endpoint, body: Login(user: "a b", scopes: ["r", "w"])))
        #expect(
            String(decoding: try converted.body.collectSynchronously(), as: UTF8.self)
                == "user=a%20b&scopes%5B%5D=r&scopes%5B%5D=w")
        #expect(converted.headers["Content-Type"] == "application/x-www-form-urlencoded; charset=utf-8")
    }

    @Test("raw bodies are sent as they are with their own content type")
    func rawBodies() throws {
        let endpoint = Endpoint<Data, Nothing>(.put, "/blob", encoding: .raw(contentType: "image/png"))
        let converted = try convert(RestingRequest(endpoint: endpoint, body: Data([1, 2, 3])))
        #expect(try converted.body.collectSynchronously() == Data([1, 2, 3]))
        #expect(converted.headers["Content-Type"] == "image/png")
        #expect(!converted.headers.contains("Accept"), "a Nothing response asks for no particular type")

        let wrong = Endpoint<PostCreateModel, Nothing>(.put, "/blob", encoding: .raw(contentType: "text/plain"))
        #expect {
            try convert(RestingRequest(endpoint: wrong, body: newPost))
        } throws: { error in
            guard case .encodingFailed = error as? RestingError else { return false }
            return true
        }
    }

    @Test("a body on GET or HEAD is an error, not a silent drop", arguments: [RequestMethod.get, .head])
    func bodyOnGetIsAnError(method: RequestMethod) {
        let endpoint = Endpoint<PostCreateModel, Nothing>(method, "/posts", encoding: .json)
        #expect {
            try convert(RestingRequest(endpoint: endpoint, body: newPost))
        } throws: { error in
            guard case .bodyNotAllowed(let rejected) = error as? RestingError else { return false }
            return rejected == method
        }
    }

    @Test("a value that cannot be encoded is an encodingFailed error")
    func encodingFailure() {
        struct Bad: Codable, Sendable { let value: Double }
        let endpoint = Endpoint<Bad, Nothing>(.post, "/bad", encoding: .json)
        #expect {
            try convert(RestingRequest(endpoint: endpoint, body: Bad(value: .nan)))
        } throws: { error in
            guard case .encodingFailed = error as? RestingError else { return false }
            return true
        }
    }

    @Test("custom methods pass through; invalid ones are refused before sending")
    func customMethods() async throws {
        let stub = StubHTTPClient()
        stub.register("PURGE", "/cache/x", .status(204))
        let client = makeClient(stub)
        let purge = Endpoint<Nothing, Nothing>("PURGE", "/cache/{{key}}", encoding: .query)
        _ = try await client.perform(RestingRequest(endpoint: purge, pathVariables: ["key": "x"])).value
        #expect(stub.received.first?.request.method == "PURGE")

        let invalid = Endpoint<Nothing, Nothing>("BAD METHOD", "/x", encoding: .query)
        let error = await restingError { try await client.perform(RestingRequest(endpoint: invalid)).value }
        guard case .invalidMethod("BAD METHOD") = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }
}

/// Just enough of "any JSON value" to look at the keys of an encoded object.
struct AnyCodable: Decodable {
    init(from decoder: any Decoder) throws {}
}
