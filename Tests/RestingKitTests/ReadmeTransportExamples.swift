import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness
import Testing

// The README's transport examples, verbatim between the snippet markers.

@Suite("README transport examples")
struct ReadmeTransportExamples {
    let server: LocalServer
    var baseUrl: String { server.baseURL }

    init() async throws { server = try await LocalServer.sharedImageServer.value }

    @Test("the libcurl transport, with request loops and fan-out on its executor")
    func curlTransport() async throws {
        // snippet: curl-client
        let transport = try CurlClient()
        let restingClient = RestingClient(baseUrl: baseUrl, httpClient: transport)
        // end snippet
        #expect(restingClient.executor != nil)

        // snippet: executor-loop
        let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}")
        let titles = try await Task(executorPreference: restingClient.executor) {
            var titles: [String] = []
            for id in 1...5 {
                titles.append(
                    try await restingClient.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": id])).value
                        .body.title)
            }
            return titles
        }.value
        // end snippet
        #expect(titles == (1...5).map { "Post \($0)" })

        // snippet: fan-out
        let posts = try await withThrowingTaskGroup(of: PostModel.self) { group in
            for id in 1...5 {
                group.addTask(executorPreference: restingClient.executor) {
                    try await restingClient.perform(RestingRequest(endpoint: getPost, pathVariables: ["id": id])).value
                        .body
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // end snippet
        #expect(Set(posts.map(\.id)) == Set(1...5))
    }

    @Test("connections warmed before the first calls")
    func warmConnections() async throws {
        // snippet: warm-connections
        let client = RestingClient(baseUrl: baseUrl, httpClient: try CurlClient())
        let warmed = try await client.warmConnections(4)
        // warmed.opened == 4: the next four calls at once find a connection each
        // end snippet
        #expect(warmed.answered == 4 && warmed.opened == 4, "\(warmed)")
    }

    @Test("TLS, proxy and limit settings")
    func configurations() throws {
        do {
            // snippet: curl-tls
            var configuration = CurlConfiguration()
            configuration.tls.caFile = "/etc/myapp/internal-ca.pem"
            configuration.tls.pinnedPublicKeys = ["sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="]
            configuration.tls.clientCertificate = .pem(
                certificateFile: "/etc/myapp/client.pem", keyFile: "/etc/myapp/client.key")
            configuration.tls.minimumVersion = .tls1_3
            let secureTransport = try CurlClient(configuration: configuration)
            // end snippet
            #expect(secureTransport.configuration.tls.verifiesPeer)
        }
        // snippet: curl-proxy-limits
        var configuration = CurlConfiguration()
        configuration.proxy = .url("http://proxy.internal:3128", noProxy: ["localhost", ".internal", "10.0.0.0/8"])
        configuration.proxyCredentials = CurlConfiguration.ProxyCredentials(username: "build", password: "s3cr3t")
        configuration.maximumConnectionsPerHost = 6
        configuration.maximumConnections = 64
        configuration.connectTimeout = .seconds(5)
        configuration.idleTimeout = .seconds(30)
        configuration.maximumResponseSize = 16 * 1024 * 1024
        let proxiedTransport = try CurlClient(configuration: configuration)
        // end snippet
        #expect(proxiedTransport.configuration.maximumConnections == 64)
    }

    @Test("connection options: the API's real name reaches the local image_server, connections kept and probed")
    func curlConnections() async throws {
        let port = server.port
        // snippet: curl-connections
        var configuration = CurlConfiguration()
        configuration.connections.hostOverrides = [
            HostOverride(host: "api.example.com", port: port, addresses: ["127.0.0.1"])
        ]
        configuration.connections.tcpKeepAlive = TCPKeepAlive(idle: .seconds(60), interval: .seconds(15))
        configuration.connections.idleConnectionTimeout = .seconds(30)
        configuration.connections.dnsCacheLifetime = .seconds(300)
        let routedTransport = try CurlClient(configuration: configuration)
        let apiClient = RestingClient(baseUrl: "http://api.example.com:\(port)", httpClient: routedTransport)
        // end snippet
        let post = try await apiClient.perform(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/posts/1")))
            .value
        #expect(post.status == 200)
    }
}
