import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingStreaming
import RestingTestSupport
import Testing

/// `CurlClient` in full duplex: a response read while its request body is still being produced, each part of the
/// body sent only once the server has answered the last. When the server ends its response with the body still
/// open, the response ends for its reader, and the rest of the body is not sent: its producer is told to stop, and
/// the connection, whose request never ended, is closed.
@Suite("CurlClient full duplex", .timeLimit(.minutes(5)))
struct FullDuplexTests {
    let server: LocalServer

    /// A conformance server of its own: each round is a round trip through it, and the shared one is busy with every
    /// other suite (a Python process, one interpreter lock).
    init() async throws { server = try await LocalServer.start(script: LocalServer.conformanceServerScript) }

    @Test(
        "a server-paced interleave ends when the server ends its response, the request body still open",
        arguments: ["chunked", "length"])
    func interleaveEnds(framing: String) async throws {
        let transport = try CurlClient()
        // Each round is several hops between tasks: under a sanitizer, with every other suite holding the cooperative
        // pool's two threads, a round took up to half a second (alone, under a millisecond). The behaviour does not
        // depend on the count; the hang detector's limit is far above that.
        let rounds = 100
        let url = try #require(
            URL(string: "\(server.baseURL)/duplex?rounds=\(rounds)\(framing == "length" ? "&length=1" : "")"))
        let (parts, producer) = AsyncStream.makeStream(of: Data.self)
        let (stops, stop) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        producer.onTermination = { _ in stop.yield() }
        producer.yield(Data("part 0".utf8))
        let echoed = try await finishing(within: .seconds(240)) {
            let response = try await transport.send(
                HTTPRequest(method: .post, url: url, body: .sequence(parts), responseStreaming: ResponseStreaming())
            ) { _ in }
            var echoed: [String] = []
            for try await line in ResponseLines(try #require(response.body.stream)) {
                echoed.append(line)
                // The next part only once the server has answered this one.
                producer.yield(Data("part \(echoed.count)".utf8))
            }
            return echoed
        }
        #expect(echoed.count == rounds)
        #expect(echoed.first?.hasPrefix("echo 000000: part 0") == true)
        #expect(echoed.last?.hasPrefix("echo 000099: part 99") == true)
        // The rest of the body is not asked for: its producer is told to stop (from the producer's task, as it ends).
        try await finishing(within: .seconds(60)) { for await _ in stops { break } }
        let census = await transport.settledCensus()
        #expect(census.live == 0, "the transfer is over, its connection closed")
    }
}
