import Foundation
import RestingCore

/// Records real exchanges to fixture files, one readable JSON file per exchange with secrets redacted, and
/// replays them offline.
///
/// ```swift
/// let fixtures = URL(fileURLWithPath: "Tests/Fixtures/posts")
/// let recorder = RecordReplayInterceptor(directory: fixtures, mode: .replayOnly)  // .record once, with network
/// let client = RestingClient(baseUrl: baseUrl, httpClient: transport, interceptors: [recorder])
/// ```
///
/// Exchanges are matched by method, URL and request body (a hash of the three names the file; JSON bodies match
/// whatever their key order). Stored requests and responses go through a ``/RestingCore/RedactionPolicy``: credentials
/// never reach the files, and a response body with a secret JSON key is stored, and replayed, with that value replaced.
public struct RecordReplayInterceptor: RestingInterceptor {
    /// Whether the network, the fixtures or both answer.
    public enum Mode: Sendable {
        /// Always use the network, and write (or overwrite) the fixture of every exchange.
        case record
        /// Answer from fixtures; requests without one go to the network and are recorded.
        case replayOrRecord
        /// Answer from fixtures only; a request without one fails with an error naming the missing file.
        case replayOnly
    }

    /// The folder of fixture files.
    public let directory: URL
    /// Whether the network, the fixtures or both answer.
    public let mode: Mode
    /// What is hidden before an exchange is written.
    public let redaction: RedactionPolicy

    /// An interceptor keeping fixtures in `directory`, in `mode`, with secrets hidden by `redaction`.
    public init(directory: URL, mode: Mode, redaction: RedactionPolicy = .default) {
        self.directory = directory
        self.mode = mode
        self.redaction = redaction
    }

    /// Answers from a fixture, or from the network (recording the exchange), as ``mode`` says.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        let body = try await request.body.collect()
        var request = request
        // The bytes just read are what goes on: a single-pass sequence cannot be read a second time.
        if case .sequence = request.body.source { request.body = .bytes(body) }
        let file = directory.appendingPathComponent(Self.fixtureName(request, body: body))
        if mode != .record, let recorded = try? Data(contentsOf: file) {
            do {
                return try JSONDecoder().decode(RecordedExchange.self, from: recorded).response.dataResponse(
                    url: request.url)
            } catch {
                throw RestingError.bodyUnreadable(
                    reason: "fixture \(file.lastPathComponent) is not a recorded exchange: \(error)")
            }
        }
        guard mode != .replayOnly else {
            throw RestingError.transportFailed(
                TransportError(
                    kind: .other, code: 0, domain: "RecordReplayInterceptor",
                    message: "no recording for \(request.method) \(redaction.url(request.url)) (expected \(file.path))")
            )
        }
        // A streamed body is recorded whole, then answered from memory: a recording is a test fixture.
        let response = try await execution(request).buffered()
        try write(RecordedExchange(request: request, body: body, response: response, redaction: redaction), to: file)
        return response
    }

    private func write(_ exchange: RecordedExchange, to file: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(exchange).write(to: file, options: .atomic)
    }

    /// `GET-posts_1-<hash>.json`: readable, and unique per method, URL and body.
    static func fixtureName(_ request: HTTPRequest, body: Data) -> String {
        var hash = FNV1a()
        hash.add(Data("\(request.method) \(request.url.absoluteString)\n".utf8))
        hash.add(canonical(body))
        let path = request.url.path.split(separator: "/").joined(separator: "_")
        let readable = String(path.map { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" ? $0 : "_" }.prefix(60))
        return "\(request.method)-\(readable.isEmpty ? "root" : readable)-\(hash.hex).json"
    }
}

/// A JSON body with sorted keys (so that two encodings of one value match), any other body as it is.
private func canonical(_ body: Data) -> Data {
    guard let object = try? JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed]),
        let sorted = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .fragmentsAllowed])
    else { return body }
    return sorted
}

/// A stable 64-bit FNV-1a hash, the same on every run and platform (unlike `Hasher`).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ data: Data) {
        for byte in data { value = (value ^ UInt64(byte)) &* 0x0100_0000_01b3 }
    }

    var hex: String { String(value, radix: 16) }
}
