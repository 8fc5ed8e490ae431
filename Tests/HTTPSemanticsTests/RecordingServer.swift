import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingURLSession
import Testing

/// `recording_server.py`: three origins on loopback (three ports of 127.0.0.1; the second is also reachable as
/// `localhost`, another host for cookies) that record every request with its headers. Each test keeps to its own
/// path prefix (its tag), so that tests running at once read only their own requests.
struct RecordingServer: Sendable {
    /// One server for the whole test process, started on first use.
    static let shared = Task { try await RecordingServer.start() }

    /// One request as the server received it.
    struct Record: Decodable, Sendable {
        let origin: String
        let method: String
        let target: String
        let headers: [[String]]

        /// Every value of `name` (any case).
        func values(of name: String) -> [String] {
            headers.filter { $0.count == 2 && $0[0].lowercased() == name.lowercased() }.map { $0[1] }
        }
    }

    let server: LocalServer
    /// The three origins' base URLs, `http://127.0.0.1:<port>`.
    let origins: [String]

    private static func start() async throws -> RecordingServer {
        let script = LocalServer.repository.appendingPathComponent("Tests/HTTPSemanticsTests/recording_server.py")
        let server = try await LocalServer.start(script: script, arguments: ["--origins", "3"])
        let data = try await get(server.baseURL + "/_origins")
        return RecordingServer(server: server, origins: try JSONDecoder().decode([String].self, from: data))
    }

    /// A plain GET through the curl transport, no interceptor in the way.
    private static func get(_ url: String) async throws -> Data {
        let request = HTTPRequest(method: .get, url: try #require(URL(string: url)))
        return try await Transport.curl.networkClient.send(request, progress: { _ in }).body.bytes
    }

    /// The second origin under the name `localhost`: another host, as cookies see hosts.
    var otherHost: String { origins[1].replacingOccurrences(of: "127.0.0.1", with: "localhost") }

    /// Every request recorded whose target starts with `/<tag>/`, in the order received.
    func log(_ tag: String) async throws -> [Record] {
        let data = try await Self.get(origins[0] + "/_log")
        return try JSONDecoder().decode([Record].self, from: data).filter { $0.target.hasPrefix("/\(tag)/") }
    }

    /// `origin` + `path`, with `query` (in order) percent-encoded as a query.
    static func url(_ origin: String, _ path: String, _ query: KeyValuePairs<String, String> = [:]) -> String {
        var components = URLComponents(string: origin + path)
        if query.count > 0 { components?.queryItems = query.map { URLQueryItem(name: $0.key, value: $0.value) } }
        // `+` is a space to the server's parse_qs: keep it a plus.
        let encoded = components?.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        components?.percentEncodedQuery = encoded
        return components?.string ?? origin + path
    }
}

extension Transport {
    /// This network transport's client (the stub has no network).
    var networkClient: any HTTPClient {
        get throws {
            switch self {
            case .curl: try Self.sharedCurl.get()
            case .urlSession: Self.sharedURLSession
            case .stub: throw RestingError.unsupported(feature: "a network", transport: "the stub")
            }
        }
    }

    private static let sharedCurl = Result { try CurlClient() }
    private static let sharedURLSession = URLSessionClient()
}
