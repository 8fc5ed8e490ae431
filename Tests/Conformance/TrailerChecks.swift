import Foundation
import RestingCore
import Testing

extension TransportConformance {
    /// Trailer fields both ways, where the transport has them (``Capabilities/handlesTrailers``): a chunked body's
    /// trailers are readable once the body has arrived — buffered in `response.trailers`, streamed in the stream's
    /// `trailers` once it has ended — and never among the headers; an upload's trailers go after its body, and one a
    /// trailer section must not carry fails the call as `invalidHeader`. Where the transport has none, an upload
    /// with trailers fails as `.unsupported` rather than dropping them.
    public func trailers() async throws {
        let checksum: @Sendable () -> HTTPHeaderFields = { ["X-Checksum": "sha256=abc"] }
        let upload = HTTPRequest(
            method: .put, url: try url("/echo"),
            body: .sequence(
                AsyncStream {
                    $0.yield(Data("hello".utf8))
                    $0.finish()
                }, trailers: checksum))
        guard capabilities.handlesTrailers else {
            await #expect(throws: RestingError.self, "\(name): trailers cannot be dropped silently") {
                _ = try await send(upload)
            }
            return
        }
        struct Echo: Decodable {
            let trailers: [[String]]
            let headers: [[String]]
            let body: String?
        }
        let echo = try JSONDecoder().decode(Echo.self, from: try await send(upload).body.bytes)
        #expect(echo.trailers == [["X-Checksum", "sha256=abc"]], "\(name): \(echo.trailers)")
        #expect(echo.body == "hello" && !echo.headers.contains { $0.first == "X-Checksum" }, "\(name)")

        let forbidden = HTTPRequest(
            method: .put, url: try url("/echo"),
            body: .sequence(
                AsyncStream {
                    $0.yield(Data("hello".utf8))
                    $0.finish()
                }
            ) {
                ["Authorization": "Bearer late"]
            })
        await #expect(
            throws: RestingError.invalidHeader(
                name: "Authorization", reason: "the field is not allowed in a trailer section"), "\(name)"
        ) {
            _ = try await send(forbidden)
        }

        let buffered = try await send(HTTPRequest(method: .get, url: try url("/trailers")))
        #expect(buffered.trailers["X-Checksum"] == "abc" && buffered.trailers["Location"] != nil, "\(name)")
        #expect(buffered.headers["X-Checksum"] == nil, "\(name)")

        let streamed = try await streamed("/trailers")
        let stream = try #require(streamed.body.stream, "\(name)")
        #expect(try await stream.collect(upTo: 1024) == Data("hello".utf8), "\(name)")
        #expect(stream.trailers?["X-Checksum"] == "abc", "\(name): \(String(describing: stream.trailers))")
    }
}
