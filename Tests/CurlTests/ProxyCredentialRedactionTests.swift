import Foundation
import RestingCore
import RestingLogging
import RestingTestSupport
import Testing

@testable import RestingCurl

/// A proxy URL libcurl refuses is quoted whole in libcurl's own error text, its password included: what reaches the
/// error, the log lines, the events and the spans has it redacted.
@Suite("A refused proxy URL's password stays secret")
struct ProxyCredentialRedactionTests {
    struct Lines: RestingLogger {
        let lines: Locked<[String]>
        func log(level: LogLevel, message: String) { lines.withLock { $0.append(message) } }
    }

    @Test(
        "a mistyped proxy scheme or syntax fails typed; the password is in no error, log line or event",
        arguments: [
            "htp://user:s3cret@127.0.0.1:3128", "http://user:s3cret@[::1", "socks9://user:s3cret@127.0.0.1:1080",
            // Quotes and parentheses are legal in user information (RFC 3986's sub-delims).
            "htp://user:s3cret'x@127.0.0.1:3128", "htp://user:s3cret(x@127.0.0.1:3128",
        ])
    func mistypedProxy(_ proxy: String) async throws {
        var configuration = CurlConfiguration()
        configuration.proxy = .url(proxy)
        let lines = Locked<[String]>([])
        let events = EventRecorder()
        let client = RestingClient(
            baseUrl: "http://127.0.0.1:9", httpClient: try CurlClient(configuration: configuration),
            interceptors: [LoggingInterceptor(level: .verbose, logger: Lines(lines: lines))],
            eventListener: .shared(events))
        let outcome = await Result {
            try await client.send(RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, "/")))
        }
        guard case .failure(let error) = outcome else {
            Issue.record("the call went through \(proxy)")
            return
        }
        let said =
            [String(describing: error), String(reflecting: error)] + lines.withLock { $0 }
            + events.all.map { String(reflecting: $0) }
        #expect(!said.isEmpty)
        for text in said { #expect(!text.contains("s3cret"), "\(text)") }
    }

    @Test("user information is redacted wherever libcurl quotes a URL, and nothing else changes")
    func redaction() {
        #expect(
            EasyHandle.redactingUserInfo("Unsupported proxy scheme for 'htp://user:pass@127.0.0.1:3128'")
                == "Unsupported proxy scheme for 'htp://<redacted>@127.0.0.1:3128'")
        #expect(
            EasyHandle.redactingUserInfo("Unsupported proxy syntax in 'user:p@ss@[::1'")
                == "Unsupported proxy syntax in '<redacted>@[::1'")
        #expect(
            EasyHandle.redactingUserInfo("Could not resolve host: example.com") == "Could not resolve host: example.com"
        )
    }
}
