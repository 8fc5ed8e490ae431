import Foundation
import RestingCore
import RestingStreaming
import RestingTestSupport
import Testing

extension TransportConformance {
    /// A request body produced while its response is read. Every transport sends a body whose sequence has ended and
    /// reads the response the server interleaves with it (`/duplex` answers each part of the body as it arrives).
    /// Where the transport is full duplex (``Capabilities/fullDuplex``), each part of the body is produced only once
    /// the server has answered the last, for 100 rounds, and when the server ends its response with the body still
    /// open, the response ends for its reader and the body's producer is told to stop.
    public func duplex() async throws {
        let produced = (0..<3).map { Data("part \($0)".utf8) }
        let whole = try await send(
            HTTPRequest(
                method: .post, url: try url("/duplex?rounds=3"),
                body: .sequence(
                    AsyncStream { continuation in
                        for part in produced { continuation.yield(part) }
                        continuation.finish()
                    }), responseStreaming: ResponseStreaming()))
        // However the transport framed the body, its bytes come back in order.
        let echoed = try await lines(of: whole).map { $0.split(separator: " ", maxSplits: 2).last ?? "" }.joined()
        #expect(echoed == "part 0part 1part 2", "\(name)")
        guard capabilities.fullDuplex else { return }

        let rounds = 100
        let (parts, producer) = AsyncStream.makeStream(of: Data.self)
        let (stops, stop) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        producer.onTermination = { _ in stop.yield() }
        producer.yield(Data("part 0".utf8))
        let response = try await send(
            HTTPRequest(
                method: .post, url: try url("/duplex?rounds=\(rounds)"), body: .sequence(parts),
                responseStreaming: ResponseStreaming()))
        var count = 0
        for try await _ in ResponseLines(try #require(response.body.stream, "\(name)")) {
            count += 1
            // The next part only once the server has answered this one.
            producer.yield(Data("part \(count)".utf8))
        }
        #expect(count == rounds, "\(name): \(count) of \(rounds) rounds")
        // The body's producer is told to stop once the response has ended (from its task, as that ends).
        try await finishing(within: .seconds(60)) { for await _ in stops { break } }
    }

    private func lines(of response: HTTPDataResponse) async throws -> [String] {
        var lines: [String] = []
        for try await line in ResponseLines(try #require(response.body.stream, "\(name)")) { lines.append(line) }
        return lines
    }
}
