import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import RestingURLSession
import Testing

/// What each transport does with a preference for HTTP/3 where it cannot speak it — the stock libcurl of Debian 12 and
/// FoundationNetworking's: HTTP/3 only is refused, typed, before anything is sent; HTTP/3 with fallback is TCP, and
/// the call's events say which version carried it. (HTTP/3 itself is tested against a QUIC server by
/// `Tests/HTTP3`, built on a libcurl that speaks it.)
@Suite("HTTP versions where HTTP/3 cannot be spoken")
struct HTTPVersionTests {
    static let withoutHTTP3 = !CurlClient.libcurl.supportsHTTP3

    /// Whether `error` is a transport's typed refusal of HTTP/3.
    static func refusesHTTP3(_ error: any Error) -> Bool {
        guard case RestingError.unsupported(let feature, _) = error else { return false }
        return feature.contains("HTTP/3")
    }

    @Test("the loaded libcurl says which it is and what it speaks")
    func libcurlReport() {
        let libcurl = CurlClient.libcurl
        #expect(libcurl.version.split(separator: ".").count == 3, "\(libcurl.version)")
        #expect(libcurl.supportsHTTP2, "Debian's and Homebrew's libcurl are built with nghttp2")
        #expect(libcurl.description.hasPrefix("libcurl \(libcurl.version) (\(libcurl.tlsLibrary)"))
        #expect(libcurl.description.contains("HTTP/3") == libcurl.supportsHTTP3)
    }

    @Test("a client for HTTP/3 only is refused at its creation", .enabled(if: withoutHTTP3))
    func clientForHTTP3Only() {
        var configuration = CurlConfiguration()
        configuration.httpVersion = .http3Only
        #expect {
            _ = try CurlClient(configuration: configuration)
        } throws: { error in
            Self.refusesHTTP3(error) && "\(error)".contains(CurlClient.libcurl.version)
        }
    }

    @Test(
        "a request for HTTP/3 only fails typed, and the server hears nothing",
        .enabled(if: withoutHTTP3), arguments: Transport.network)
    func requestForHTTP3Only(_ transport: Transport) async throws {
        let server = try await RecordingServer.shared.value
        let tag = "h3only-\(transport.rawValue)"
        var request = HTTPRequest(method: .get, url: try #require(URL(string: server.origins[0] + "/\(tag)/x")))
        request.attributes.httpVersion = .http3Only
        #if !canImport(FoundationNetworking)
        // URLSession on Apple platforms speaks HTTP/3 itself.
        guard transport == .curl else { return }
        #endif
        await #expect {
            _ = try await transport.networkClient.send(request, progress: { _ in })
        } throws: { Self.refusesHTTP3($0) }
        #expect(try await server.log(tag).isEmpty)
    }

    @Test(
        "a request for HTTP/3 with fallback goes over TCP, and its events say which version carried it",
        .enabled(if: withoutHTTP3), arguments: Transport.network)
    func requestForHTTP3WithFallback(_ transport: Transport) async throws {
        let server = try await RecordingServer.shared.value
        let tag = "h3fallback-\(transport.rawValue)"
        let events = EventRecorder()
        let client = RestingClient(
            baseUrl: server.origins[0], httpClient: try transport.networkClient, eventListener: .shared(events))
        var request = RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/\(tag)/x"))
        request.attributes.httpVersion = .http3
        #expect(try await client.send(request).status == 200)
        #expect(try await server.log(tag).count == 1)
        let versions = events.kinds.compactMap { kind -> String? in
            if case .connectionAcquired(let details) = kind { details.protocolVersion } else { nil }
        }
        if transport == .curl { #expect(versions == ["1.1"]) }
    }

    @Test("a client for HTTP/3 with fallback on a libcurl without it is a TCP client", .enabled(if: withoutHTTP3))
    func clientForHTTP3WithFallback() async throws {
        let server = try await RecordingServer.shared.value
        var configuration = CurlConfiguration()
        configuration.httpVersion = .http3
        let transport = try CurlClient(configuration: configuration)
        let response = try await transport.send(
            HTTPRequest(method: .get, url: try #require(URL(string: server.origins[0] + "/h3client/x"))),
            progress: { _ in })
        #expect(response.status == 200)
        #expect(response.metrics?.protocolVersion == "1.1")
        await transport.shutdown()
    }

    #if canImport(FoundationNetworking)
    @Test("URLSessionClient refuses HTTP/3 only before it reads the body: a single-pass body is still the caller's")
    func refusalLeavesTheBody() async throws {
        let server = try await RecordingServer.shared.value
        let chunks = AsyncStream<Data> { continuation in
            continuation.yield(Data("live upload".utf8))
            continuation.finish()
        }
        var request = HTTPRequest(
            method: .post, url: try #require(URL(string: server.origins[0] + "/h3body/x")),
            body: .sequence(chunks, contentLength: 11))
        request.attributes.httpVersion = .http3Only
        let transport = try Transport.urlSession.networkClient
        await #expect {
            _ = try await transport.send(request, progress: { _ in })
        } throws: { Self.refusesHTTP3($0) }
        request.attributes.httpVersion = nil
        #expect(try await transport.send(request, progress: { _ in }).status == 200)
        #expect(try await server.log("h3body").count == 1)
    }
    #endif
}
