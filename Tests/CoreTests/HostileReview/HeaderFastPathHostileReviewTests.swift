import Foundation
import RestingTestSupport
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingOffline
@testable import RestingResilience

/// A hostile review of the header fast paths: the byte-wise token check and validation, the ASCII-only lookup of
/// credential names, the `@` prefilter of the credential boundary's user-info check, the rate limiter's field-name
/// prefilter, and the rate limiter's token wait on its caller's executor.
///
/// The first suite holds what the review proved broken (each test failed against the reviewed code, and passes since
/// the fix); the second, the attacks the code withstood, kept so that the attempt is recorded.
@Suite("Header fast paths: hostile review — found and fixed")
struct HeaderFastPathHostileReviewDefectTests {
    /// Every file under `directory`, as text, concatenated.
    static func everything(under directory: URL) -> String {
        guard let walker = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil) else {
            return ""
        }
        var text = ""
        // Files with bytes only: FoundationEssentials' `Data(contentsOf:)` leaks its 4 KiB read buffer on an empty
        // file.
        for case let file as URL in walker where (try? file.resourceValues(forKeys: [.fileSizeKey]))?.fileSize ?? 0 > 0
        {
            if let data = try? Data(contentsOf: file) { text += String(decoding: data, as: UTF8.self) + "\n" }
        }
        return text
    }

    /// The reviewed `SensitiveHeaders.contains` folded ASCII only, where it had matched `name.lowercased()`: the name
    /// `X-Api-\u{212A}ey` (U+212A KELVIN SIGN lowercases to an ASCII `k`) stopped being a credential. The chain refuses
    /// such a name before it is sent, but the offline queue is not the chain: `OfflineQueue.enqueue` keeps a request's
    /// headers minus `carriesCredential` ones, unvalidated, and wrote these values to disk in clear.
    @Test(
        "a credential header whose name lowercases to a credential name (Kelvin-sign K) is not written to the offline queue's files"
    )
    func kelvinSignCredentialNameIsNotWrittenToTheOfflineQueue() throws {
        let apiKeyName = "X-Api-\u{212A}ey"
        let cookieName = "Coo\u{212A}ie"
        // What made them credentials before the change: the documented list, matched after `lowercased()`.
        #expect(SensitiveHeaders.names.contains(apiKeyName.lowercased()))
        #expect(SensitiveHeaders.names.contains(cookieName.lowercased()))

        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("hostile-outbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let queue = try OfflineQueue(directory: directory)
        let request = RestingRequest(
            endpoint: Endpoint<Nothing, Nothing>(.get, "/items"),
            headers: [apiKeyName: "sk_live_KELVINSECRET1", cookieName: "sid=KELVINSECRET2", "X-Trace": "t1"])
        try queue.enqueue(request)

        let stored = try queue.entries().flatMap(\.headers)
        #expect(stored.contains { $0.first == "X-Trace" }, "the entry was written")
        #expect(
            !stored.contains { $0.last?.contains("KELVINSECRET") == true },
            "stored header fields: \(stored.map { $0.first ?? "" })")
        #expect(!Self.everything(under: directory).contains("KELVINSECRET"), "a credential's value is on disk")
    }
}

@Suite("Header fast paths: hostile review — attacks withstood")
struct HeaderFastPathHostileReviewWithstoodTests {
    static let api = URL(string: "https://api.example.com/v1/items")!
    static let apiKey = "https://api.example.com:443"
    static let tokenBytes = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)

    func enforced(_ request: HTTPRequest) throws -> HTTPRequest {
        var request = request
        try CredentialBoundary.enforce(on: &request)
        return request
    }

    /// The comparison the reviewed fast path replaced: byte by byte, folding ASCII letters only.
    static func referenceEquals(_ a: String, _ b: String) -> Bool {
        let (x, y) = (Array(a.utf8), Array(b.utf8))
        guard x.count == y.count else { return false }
        func fold(_ byte: UInt8) -> UInt8 { (0x41...0x5A).contains(byte) ? byte | 0x20 : byte }
        return zip(x, y).allSatisfy { fold($0) == fold($1) }
    }

    /// A deterministic generator (SplitMix64), so that a failure can be replayed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// Names built to stress the byte-wise paths: credential names in random case, with a byte changed, a non-ASCII
    /// scalar in, a NUL, very long, from a substring, and from invalid UTF-8.
    static func hostileNames() -> [String] {
        var generator = SplitMix(state: 0x5EED)
        let alphabet: [Unicode.Scalar] = [
            "a", "Z", "-", "_", "@", "`", "[", "{", "\u{0}", "\u{7F}", "\u{212A}", "\u{130}", "\u{17F}", "é", "😀",
        ]
        var names: [String] = []
        for name in SensitiveHeaders.names {
            names.append(name)
            names.append(String(name.map { Bool.random(using: &generator) ? Character($0.uppercased()) : $0 }))
            names.append(name + "\u{0}")
            names.append("\u{0}" + name.dropFirst())
            names.append(String(("xx" + name + "yy").dropFirst(2).dropLast(2)))
            names.append(name.replacingOccurrences(of: "k", with: "\u{212A}"))
            names.append(name.replacingOccurrences(of: "i", with: "\u{130}"))
            names.append(String(repeating: name, count: 400))
        }
        for _ in 0..<2_000 {
            let length = Int.random(in: 0...30, using: &generator)
            names.append(
                String(String.UnicodeScalarView((0..<length).map { _ in alphabet.randomElement(using: &generator)! })))
        }
        names.append(String(decoding: [0xFF, 0xFE, 0x61], as: UTF8.self))
        names.append(String(decoding: [0xC0, 0x80], as: UTF8.self))
        names.append("")
        return names
    }

    // MARK: - Tokens and validation

    @Test("every byte is a one-byte name exactly when RFC 9110 says it is a token character, and validation agrees")
    func everyByteAsAName() {
        for byte in UInt8.min...UInt8.max {
            let isToken = Self.tokenBytes.contains(byte)
            #expect(HTTPToken.isTokenCharacter(byte) == isToken, "byte 0x\(String(byte, radix: 16))")
            guard byte < 0x80 else { continue }
            let name = String(UnicodeScalar(byte))
            #expect(HTTPToken.isToken(name) == isToken)
            #expect(RequestMethod(rawValue: "GE" + name).isValidToken == isToken)
            let headers = HTTPHeaderFields([(name + "X-Long-Name-Past-The-Small-String-Limit", "v")])
            #expect((try? headers.validate()) != nil || !isToken)
            #expect((try? headers.validate()) == nil || isToken)
        }
        #expect(!HTTPToken.isToken("") && !RequestMethod(rawValue: "").isValidToken)
        #expect(!HTTPToken.isToken(String(decoding: [0xFF], as: UTF8.self)))
        #expect(!RequestMethod(rawValue: "GET\r\nX-Injected: 1").isValidToken)
        #expect(HTTPToken.isToken(String(repeating: "a", count: 100_000)))
    }

    @Test(
        "every control byte but tab in a value is refused wherever it sits, in short and long values; tab and UTF-8 pass"
    )
    func controlBytesInValues() {
        let short = "ab"
        let long = String(repeating: "v", count: 300)
        for byte in UInt8(0)...0x7F {
            let isControl = (byte < 0x20 && byte != 0x09) || byte == 0x7F
            let character = String(UnicodeScalar(byte))
            for value in [character, short + character, character + short, long + character + long] {
                let headers = HTTPHeaderFields([("X-Value", value)])
                let refused = (try? headers.validate()) == nil
                #expect(refused == isControl, "byte 0x\(String(byte, radix: 16)) in a \(value.utf8.count)-byte value")
            }
        }
        #expect((try? HTTPHeaderFields([("X-Value", "a\tb ünïcode \u{85}")]).validate()) != nil)
        var smuggler = HTTPRequest(method: .get, url: Self.api)
        smuggler.headers.add(name: "X-A", value: "1\r\nAuthorization: Bearer stolen")
        #expect(throws: RestingError.self) { try smuggler.validate() }
    }

    @Test("a name is refused unless every byte is a token character, for names of every shape")
    func hostileNamesAgainstValidation() {
        for name in Self.hostileNames() {
            let expected = !name.isEmpty && name.utf8.allSatisfy(Self.tokenBytes.contains)
            #expect(HTTPToken.isToken(name) == expected, "\(name.debugDescription)")
            #expect(((try? HTTPHeaderFields([(name, "v")]).validate()) != nil) == expected)
        }
    }

    // MARK: - Credential names

    @Test("the byte-wise comparison agrees with a reference over hostile names, both ways, and never traps")
    func caseInsensitiveEqualsAgainstReference() {
        let names = Self.hostileNames()
        var generator = SplitMix(state: 42)
        for name in names {
            let other = names.randomElement(using: &generator)!
            let flipped = String(
                name.unicodeScalars.map { $0.isASCII ? Character($0).uppercased() : String($0) }.joined())
            for candidate in [other, flipped, name, String(name.dropLast())] {
                #expect(name.caseInsensitiveEquals(candidate) == Self.referenceEquals(name, candidate))
                #expect(candidate.caseInsensitiveEquals(name) == Self.referenceEquals(candidate, name))
            }
        }
    }

    @Test("a name is a credential's exactly when it lowercases to a listed name (ASCII or not)")
    func sensitiveNamesAgainstReference() {
        for name in Self.hostileNames() {
            let expected = SensitiveHeaders.names.contains(name.lowercased())
            #expect(SensitiveHeaders.contains(name) == expected, "\(name.debugDescription)")
            #expect(RedactionPolicy.default.redactsHeader(name) == expected, "\(name.debugDescription)")
        }
    }

    /// Readdresses every request to `target`, keeping its headers: a hop to another origin.
    struct Readdress: RestingInterceptor {
        let target: URL
        func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws -> HTTPDataResponse {
            var request = request
            request.url = target
            return try await execution(request)
        }
    }

    @Test("credential names in any ASCII case, from substrings and marked fields, never reach another origin")
    func credentialNamesInOddCasesAcrossOrigins() async throws {
        let seen = Collector<HTTPRequest>()
        let transport = ClosureHTTPClient { request in
            seen.append(request)
            return HTTPDataResponse(status: 200, url: request.url)
        }
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: transport,
            interceptors: [Readdress(target: URL(string: "https://cdn.example.net/x")!)])
        var generator = SplitMix(state: 7)
        var headers = HTTPHeaderFields()
        for name in SensitiveHeaders.names.sorted() {
            let odd = String(name.map { Bool.random(using: &generator) ? Character($0.uppercased()) : $0 })
            headers.add(name: String(("<" + odd + ">").dropFirst().dropLast()), value: "SECRET-\(name)")
        }
        headers.add(name: "x-tenant-secret", value: "SECRET-tenant", sensitive: true)
        headers.add(name: "X-TENANT-SECRET", value: "SECRET-tenant-again")
        headers.add(name: "Accept", value: "*/*")
        let endpoint = Endpoint<Nothing, Data>(.get, "/a", encoding: .query)
        _ = try await client.perform(RestingRequest(endpoint: endpoint, headers: headers)).value
        let sent = try #require(seen.all.first)
        #expect(sent.url.host == "cdn.example.net")
        #expect(!sent.headers.contains { $0.value.hasPrefix("SECRET") }, "\(sent.headers.map(\.name))")

        // A listed name with a NUL is no credential, and no token either: nothing is sent.
        let nul = RestingRequest(endpoint: endpoint, headers: ["Authorization\u{0}": "SECRET-nul"])
        await #expect(throws: RestingError.self) { try await client.perform(nul).value }
        #expect(seen.all.count == 1)
    }

    // MARK: - User-info

    static let crossOriginUserInfo: [URL?] = [
        URL(string: "https://USERNAME1:S3CRETPW@cdn.example.net/x"),
        URL(string: "https://:S3CRETPW@cdn.example.net/"),
        URL(string: "https://USERNAME1@cdn.example.net"),
        URL(string: "https://USERNAME1:@cdn.example.net/"),
        URL(string: "https://USERNAME1%40corp:S3CRETPW%40x@cdn.example.net/"),
        URL(string: "https://USERNAME1@corp:S3CRETPW@cdn.example.net/"),
        URL(string: "https://USERNAME1:S3CRETPW@[2001:db8::1]:8443/"),
        URL(string: "https://USERNAME1:S3CRETPW@127.0.0.1/"),
        URL(string: "HTTPS://USERNAME1:S3CRETPW@CDN.EXAMPLE.NET/"),
        URL(string: "http://USERNAME1:S3CRETPW@api.example.com/v1/items"),
        URL(string: "https://USERNAME1:S3CRETPW@api.example.com:8443/"),
        URL(string: "https://api.example.com\\@cdn.example.net/"),
        URL(string: "https://USERNAME1:S3CRETPW@cdn.example.net/@me?to=a@b#@"),
        URL(string: "//USERNAME1:S3CRETPW@cdn.example.net/x", relativeTo: api),
        URL(string: "x?q=1", relativeTo: URL(string: "https://USERNAME1:S3CRETPW@cdn.example.net/")!),
        URL(string: "#frag", relativeTo: URL(string: "https://USERNAME1:S3CRETPW@cdn.example.net/a")!),
    ]

    @Test("a URL's user-info, however it is spelled, does not survive a hop to another origin", arguments: 0..<16)
    func userInfoAcrossOrigins(_ index: Int) throws {
        let target = try #require(Self.crossOriginUserInfo[index])
        var request = HTTPRequest(method: .get, url: Self.api)
        request.url = target
        // Refusing the request is as safe as stripping it; sending the user-info is not.
        guard let sent = try? enforced(request) else { return }
        #expect(sent.url.user == nil && sent.url.password == nil, "\(sent.url.absoluteString)")
        #expect(!sent.url.absoluteString.contains("S3CRETPW") && !sent.url.absoluteString.contains("USERNAME1"))
    }

    @Test("user-info stays on a request to the call's own origin, and an @ outside the authority is no user-info")
    func userInfoWithinTheOrigin() throws {
        let own = URL(string: "https://u:p@api.example.com/v1/items")!
        var request = HTTPRequest(method: .get, url: own)
        request.url = URL(string: "https://u:p@api.example.com/v1/other?x=@")!
        #expect(try enforced(request).url == request.url)
        request.url = URL(string: "https://cdn.example.net/users/@me?mail=a@b.c")!
        #expect(try enforced(request).url == request.url)
    }

    @Test("a redirect from a base URL with user-info to another origin sends neither the user-info nor Authorization")
    func redirectFromUserInfoBase() async throws {
        let seen = Collector<HTTPRequest>()
        let transport = ClosureHTTPClient { request in
            seen.append(request)
            guard request.url.host == "api.example.com" else { return HTTPDataResponse(status: 200, url: request.url) }
            return HTTPDataResponse(status: 307, headers: ["Location": "//cdn.example.net/landing"], url: request.url)
        }
        let client = RestingClient(baseUrl: "https://USERNAME1:S3CRETPW@api.example.com", httpClient: transport)
        let endpoint = Endpoint<Nothing, Data>(.get, "/a", encoding: .query)
        _ = try await client.perform(RestingRequest(endpoint: endpoint, headers: ["AUTHORIZATION": "Bearer t"])).value
        let hops = seen.all
        #expect(hops.count == 2)
        #expect(
            hops.last.map { $0.url.user == nil && $0.url.password == nil && $0.headers["Authorization"] == nil } == true
        )
    }

    // MARK: - Rate-limit fields

    @Test("the field prefilter finds every rate-limit name in any case, and no short or odd name traps it")
    func rateLimitPrefilter() {
        for name in [
            "RateLimit", "ratelimit", "RATELIMIT", "RateLimit-Policy", "ratelimit-remaining", "x-ratelimit-remaining",
            "X-RATELIMIT-RESET", "x-RateLimit-Limit", "X_RateLimit",
        ] {
            #expect(RateLimitFields.mayBeIn(HTTPHeaderFields([(name, "1")]), or: []), "\(name)")
        }
        for name in ["", "x", "X", "x-", "ratelimi", "x-ratelimi", "Retry-After", "ẋ-ratelimit", "\u{0}", "rate-limit"]
        {
            #expect(!RateLimitFields.mayBeIn(HTTPHeaderFields([(name, "1")]), or: []), "\(name.debugDescription)")
        }
        #expect(RateLimitFields.mayBeIn(["BACKOFF": "5"], or: ["Backoff"]))
        #expect(!RateLimitFields.mayBeIn(["Backoff2": "5"], or: ["Backoff"]))
    }

    @Test(
        "a server's quota at zero pauses its key whatever the case of the fields' names",
        arguments: [
            ["x-ratelimit-remaining": "0", "x-ratelimit-reset": "30"],
            ["X-RATELIMIT-REMAINING": "0", "X-RATELIMIT-RESET": "30"],
            ["RATELIMIT": "limit=10, remaining=0, reset=30"],
            ["ratelimit": "\"default\";r=0;t=30"],
            ["ratelimit-remaining": "0", "RATELIMIT-RESET": "30"],
        ])
    func quotaFieldsInAnyCase(_ fields: [String: String]) async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: .init(requests: 100, per: .seconds(1)), clock: clock)
        let headers = HTTPHeaderFields(fields.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
        _ = try await FakeChain(.status(200, headers: headers)).run(
            limiter, on: HTTPRequest(method: .get, url: Self.api))
        #expect(limiter.pausedUntil(for: Self.apiKey) == clock.now + 30)
    }

    @Test("a lowercase RateLimit-Policy, a shouted Backoff and a 429's retry-after are all honoured")
    func policyBackoffAndRetryAfterInAnyCase() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(
            limit: .init(requests: 100, per: .seconds(1)), maximumWait: .seconds(120), backoffHeaders: ["Backoff"],
            clock: clock)
        let request = HTTPRequest(method: .get, url: Self.api)
        _ = try await FakeChain(.status(200, headers: ["ratelimit-policy": "1;w=60"])).run(limiter, on: request)
        // The bucket is cut to the server's burst of one: that one goes at once, the next waits a minute.
        _ = try await FakeChain(.status(200)).run(limiter, on: request)
        _ = try await FakeChain(.status(200)).run(limiter, on: request)
        #expect(clock.sleeps == [.seconds(60)], "the server's 1 per 60 s replaced 100 per second")

        let other = RateLimitInterceptor(
            limit: .init(requests: 100, per: .seconds(1)), backoffHeaders: ["Backoff"], clock: clock)
        _ = try await FakeChain(.status(200, headers: ["BACKOFF": "5"])).run(other, on: request)
        #expect(other.pausedUntil(for: Self.apiKey) == clock.now + 5)
        let third = RateLimitInterceptor(limit: .init(requests: 100, per: .seconds(1)), clock: clock)
        _ = try await FakeChain(.status(429, headers: ["retry-after": "7"])).run(third, on: request)
        #expect(third.pausedUntil(for: Self.apiKey) == clock.now + 7)
    }

    // MARK: - The token wait on the caller's executor

    /// A clock standing still whose sleeps last until cancelled; each sleep is recorded as it starts.
    final class StandingClock: InterceptorClock {
        let sleeps = Collector<Duration>()
        var now: Date { Date(timeIntervalSince1970: 1_700_000_000) }
        func sleep(for duration: Duration) async throws {
            sleeps.append(duration)
            try await Task.sleep(for: .seconds(3_600))
        }
    }

    actor Caller {
        func call(_ limiter: RateLimitInterceptor, _ request: HTTPRequest) async throws -> HTTPDataResponse {
            try await limiter.intercept(
                request: request,
                execution: InterceptorExecution { request in
                    HTTPDataResponse(status: 200, url: request.url)
                })
        }
    }

    @MainActor
    static func callOnMain(_ limiter: RateLimitInterceptor, _ request: HTTPRequest) async throws -> HTTPDataResponse {
        try await limiter.intercept(
            request: request,
            execution: InterceptorExecution { request in
                HTTPDataResponse(status: 200, url: request.url)
            })
    }

    @Test(
        "a call waiting for a token on the main actor ends as cancelled when cancelled, and gives its token back",
        .timeLimit(.minutes(5)))
    func cancelledWaitOnTheMainActor() async throws {
        let clock = StandingClock()
        let limiter = RateLimitInterceptor(limit: .init(requests: 1, per: .seconds(10)), clock: clock)
        let request = HTTPRequest(method: .get, url: Self.api)
        _ = try await Self.callOnMain(limiter, request)
        for round in 1...3 {
            let waiting = Task { @MainActor in try await Self.callOnMain(limiter, request) }
            await clock.sleeps.wait { $0.count == round }
            waiting.cancel()
            await #expect(throws: RestingError.cancelled) { try await waiting.value }
        }
        #expect(clock.sleeps.all == [.seconds(10), .seconds(10), .seconds(10)], "no cancelled wait kept its token")
    }

    @Test(
        "a call waiting for a token on an actor ends as cancelled when cancelled, and gives its token back",
        .timeLimit(.minutes(5)))
    func cancelledWaitOnAnActor() async throws {
        let clock = StandingClock()
        let limiter = RateLimitInterceptor(limit: .init(requests: 1, per: .seconds(10)), clock: clock)
        let request = HTTPRequest(method: .get, url: Self.api)
        let caller = Caller()
        _ = try await caller.call(limiter, request)
        let waiting = Task { try await caller.call(limiter, request) }
        await clock.sleeps.wait { $0.count == 1 }
        // The actor is free while its call waits: another call of it is refused at once, not queued behind it.
        let strict = RateLimitInterceptor(
            limit: .init(requests: 1, per: .seconds(10)), maximumWaiting: 0, clock: VirtualClock())
        _ = try await caller.call(strict, request)
        await #expect(throws: ResilienceError.self) { try await caller.call(strict, request) }
        waiting.cancel()
        await #expect(throws: RestingError.cancelled) { try await waiting.value }
        let again = Task { try await caller.call(limiter, request) }
        await clock.sleeps.wait { $0.count == 2 }
        again.cancel()
        _ = try? await again.value
        #expect(clock.sleeps.all == [.seconds(10), .seconds(10)])
    }

    @Test("many calls from the main actor past the burst all get their tokens in turn", .timeLimit(.minutes(5)))
    func manyWaitersOnTheMainActor() async throws {
        let clock = VirtualClock()
        let limiter = RateLimitInterceptor(limit: .init(requests: 10, per: .seconds(1), burst: 2), clock: clock)
        let request = HTTPRequest(method: .get, url: Self.api)
        let calls = (0..<50).map { _ in Task { @MainActor in try await Self.callOnMain(limiter, request).status } }
        var statuses: [Int] = []
        for call in calls { statuses.append(try await call.value) }
        #expect(statuses.count == 50 && statuses.allSatisfy { $0 == 200 })
        #expect(!clock.sleeps.isEmpty)
    }

    // MARK: - The deadline's cached seconds

    @Test("a call's own timeout still overrides the interceptor's, and the interceptor's applies without one")
    func deadlineTimeouts() async throws {
        let clock = VirtualClock()
        let deadline = DeadlineInterceptor(callTimeout: .seconds(1), clock: clock)
        let limiter = RateLimitInterceptor(limit: .init(requests: 1, per: .seconds(5)), clock: clock)
        let chain = FakeChain(.status(200))
        let run: @Sendable (HTTPRequest) async throws -> HTTPDataResponse = { request in
            try await deadline.intercept(
                request: request,
                execution: InterceptorExecution { try await limiter.intercept(request: $0, execution: chain.execution) }
            )
        }
        _ = try await run(HTTPRequest(method: .get, url: Self.api))
        await #expect(throws: RestingError.deadlineExceeded(.init(limit: .call, stage: .rateLimitWait))) {
            try await run(HTTPRequest(method: .get, url: Self.api))
        }
        var patient = HTTPRequest(method: .get, url: Self.api)
        patient.attributes.callTimeout = .seconds(10)
        _ = try await run(patient)
        #expect(clock.sleeps == [.seconds(5)])
    }
}
