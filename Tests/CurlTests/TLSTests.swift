import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTransportConformance
import Testing

@Suite("CurlClient TLS", .timeLimit(.minutes(5)))
struct TLSTests {
    let fixtures: TLSFixtures

    init() async throws { fixtures = try await TLSFixtures.shared.value }

    /// How long a test that checks whether a handshake is refused or accepted waits for it: as long as a suite's time
    /// limit allows. Such a test checks the outcome, not the speed: under AddressSanitizer's slow unwinder, with every
    /// suite running on two cores, a refused handshake took longer than the 30 s default connect timeout (80 s, in
    /// this suite and in the WebSocket one), and the refusal came out as a timeout.
    static let patientHandshake: Duration = .seconds(240)

    /// A configuration that waits ``patientHandshake`` for a handshake.
    static func patientConfiguration() -> CurlConfiguration {
        var configuration = CurlConfiguration()
        configuration.connectTimeout = patientHandshake
        return configuration
    }

    private func get(
        _ server: LocalServer, _ path: String = "/echo", configure: (inout CurlConfiguration) -> Void
    ) async throws -> HTTPDataResponse {
        var configuration = Self.patientConfiguration()
        configure(&configuration)
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)\(path)"))
        let transport = RedirectingHTTPClient(try CurlClient(configuration: configuration))
        return try await transport.send(HTTPRequest(method: .get, url: url)) { _ in }
    }

    private func expectTLSFailure(
        _ server: LocalServer, _ path: String = "/echo", sourceLocation: SourceLocation = #_sourceLocation,
        configure: (inout CurlConfiguration) -> Void
    ) async {
        do {
            let response = try await get(server, path, configure: configure)
            Issue.record("expected a TLS failure, got HTTP \(response.status)", sourceLocation: sourceLocation)
        } catch RestingError.transportFailed(let failure) {
            #expect(
                failure.kind == .tlsFailed || failure.kind == .connectionReset, "\(failure)",
                sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected a transport failure, got \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test("a client certificate's password shows neither in print nor in dump")
    func clientCertificatePasswordIsHidden() {
        var configuration = CurlConfiguration()
        for certificate in [
            CurlConfiguration.ClientCertificate.pem(certificateFile: "c.pem", keyFile: "k.pem", keyPassword: "s3cr3t"),
            .pkcs12(file: "id.p12", password: "s3cr3t"),
        ] {
            configuration.tls.clientCertificate = certificate
            var dumped = ""
            dump(configuration, to: &dumped)
            #expect(
                !dumped.contains("s3cr3t") && !"\(certificate)".contains("s3cr3t")
                    && !String(reflecting: certificate).contains("s3cr3t"))
            #expect(dumped.contains("<redacted>"), "\(dumped)")
        }
    }

    @Test("verification is on by default: a certificate from an unknown CA is refused")
    func verificationIsOnByDefault() async throws {
        let server = try await fixtures.server()
        await expectTLSFailure(server) { _ in }
    }

    @Test("a custom CA, from a file or from memory, is trusted, and metrics include the TLS handshake")
    func customCA() async throws {
        let server = try await fixtures.server()
        let fromFile = try await get(server) { $0.tls.caFile = fixtures.path("ca.pem") }
        #expect(fromFile.status == 200)
        #expect((fromFile.metrics?.tlsHandshake ?? .zero) > .zero)
        let pem = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("ca.pem")))
        #expect(try await get(server) { $0.tls.caPEM = pem }.status == 200)
    }

    @Test("a certificate for another host name, and a self-signed one, are refused even with the custom CA")
    func hostNameMismatchAndSelfSignedLeaf() async throws {
        for certificate in ["mismatched", "selfsigned"] {
            let server = try await fixtures.server(certificate: certificate)
            await expectTLSFailure(server) { $0.tls.caFile = fixtures.path("ca.pem") }
        }
    }

    @Test("a wrong pin fails every request of a client, never only the first: no connection outlives the refusal")
    func wrongPinOnEveryRequest() async throws {
        let server = try await fixtures.server()
        var configuration = Self.patientConfiguration()
        configuration.tls.caFile = fixtures.path("ca.pem")
        configuration.tls.pinnedPublicKeys = [try fixtures.pin("other")]
        let client = try CurlClient(configuration: configuration)
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/echo"))
        for attempt in 1...3 {
            do {
                let response = try await client.send(HTTPRequest(method: .get, url: url)) { _ in }
                Issue.record("attempt \(attempt) got HTTP \(response.status) past a wrong pin")
            } catch RestingError.transportFailed(let failure) {
                #expect(failure.kind == .tlsFailed, "attempt \(attempt): \(failure)")
            }
        }
    }

    @Test("a redirect from HTTPS down to plain HTTP (another port too) arrives without any credential")
    func downgradingRedirectDropsCredentials() async throws {
        let server = try await fixtures.server()
        let plain = try await LocalServer.sharedConformanceServer.value
        let target =
            "http://127.0.0.1:\(plain.port)/echo".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        var headers: HTTPHeaderFields = ["Authorization": "Bearer s3cr3t", "X-Api-Key": "s3cr3t", "X-Kept": "yes"]
        headers.add(name: "X-Tenant-Secret", value: "s3cr3t", sensitive: true)
        var configuration = Self.patientConfiguration()
        configuration.tls.caFile = fixtures.path("ca.pem")
        let url = try #require(URL(string: "https://127.0.0.1:\(server.port)/redirect/302?to=\(target)"))
        let transport = RedirectingHTTPClient(try CurlClient(configuration: configuration))
        let response = try await transport.send(HTTPRequest(method: .get, url: url, headers: headers)) { _ in }
        let echoed = String(decoding: response.body.bytes, as: UTF8.self)
        #expect(response.status == 200 && echoed.contains("X-Kept"), "\(echoed)")
        #expect(!echoed.contains("s3cr3t"), "a credential followed the downgrade: \(echoed)")
    }

    @Test("an HTTPS proxy is trusted through the same custom CA as servers, and refused without it")
    func httpsProxyTrustsTheCustomCA() async throws {
        let proxy = try await fixtures.httpsProxy()
        let origin = try await LocalServer.sharedConformanceServer.value
        let url = try #require(URL(string: "http://127.0.0.1:\(origin.port)/echo"))
        var configuration = Self.patientConfiguration()
        configuration.proxy = .url("https://127.0.0.1:\(proxy.port)")
        do {
            _ = try await CurlClient(configuration: configuration).send(HTTPRequest(method: .get, url: url)) { _ in }
            Issue.record("a proxy signed by an unknown CA was trusted")
        } catch RestingError.transportFailed(let failure) {
            #expect(failure.kind == .tlsFailed, "\(failure)")
        }
        configuration.tls.caFile = fixtures.path("ca.pem")
        let response = try await CurlClient(configuration: configuration).send(HTTPRequest(method: .get, url: url)) {
            _ in
        }
        #expect(response.status == 200)
        configuration.tls.caFile = nil
        configuration.tls.caPEM = try Data(contentsOf: URL(fileURLWithPath: fixtures.path("ca.pem")))
        #expect(
            try await CurlClient(configuration: configuration).send(HTTPRequest(method: .get, url: url)) { _ in }.status
                == 200)
    }

    @Test("an HTTPS proxy's own TLS: its authority and pins apart from the origins'; a wrong pin or CA fails typed")
    func httpsProxyOwnTLS() async throws {
        let proxy = try await fixtures.httpsProxy()
        let origin = try await LocalServer.sharedConformanceServer.value
        let url = try #require(URL(string: "http://127.0.0.1:\(origin.port)/echo"))
        func get(proxyTLS: (inout CurlConfiguration.TLS) -> Void, originCA: String? = nil) async throws -> Int {
            var configuration = Self.patientConfiguration()
            configuration.proxy = .url("https://127.0.0.1:\(proxy.port)")
            configuration.tls.caFile = originCA
            var tls = CurlConfiguration.TLS()
            proxyTLS(&tls)
            configuration.proxyTLS = tls
            return try await CurlClient(configuration: configuration).send(HTTPRequest(method: .get, url: url)) { _ in }
                .status
        }
        let rightPin = try fixtures.pin("server")
        let wrongPin = try fixtures.pin("other")
        #expect(
            try await get {
                $0.caFile = fixtures.path("ca.pem")
                $0.pinnedPublicKeys = [rightPin]
            } == 200)
        let failures: [(String, (inout CurlConfiguration.TLS) -> Void, String?)] = [
            (
                "a wrong pin",
                {
                    $0.caFile = fixtures.path("ca.pem")
                    $0.pinnedPublicKeys = [wrongPin]
                }, nil
            ),
            // The origins' authority is not the proxy's once the proxy has TLS of its own.
            ("the system's authorities only", { _ in }, fixtures.path("ca.pem")),
        ]
        for (name, proxyTLS, originCA) in failures {
            do {
                _ = try await get(proxyTLS: proxyTLS, originCA: originCA)
                Issue.record("\(name) let the proxy through")
            } catch RestingError.transportFailed(let failure) {
                #expect(failure.kind == .tlsFailed, "\(name): \(failure)")
            }
        }
    }

    @Test("the right SPKI pin passes and a wrong one fails")
    func pinning() async throws {
        let server = try await fixtures.server()
        let rightPin = try fixtures.pin("server")
        let wrongPin = try fixtures.pin("other")
        #expect(
            try await get(server) {
                $0.tls.caFile = fixtures.path("ca.pem")
                $0.tls.pinnedPublicKeys = [rightPin]
            }.status == 200)
        await expectTLSFailure(server) {
            $0.tls.caFile = fixtures.path("ca.pem")
            $0.tls.pinnedPublicKeys = [wrongPin]
        }
    }

    @Test("a pin cannot be bypassed by a redirect to another host")
    func pinningSurvivesRedirects() async throws {
        let pinned = try await fixtures.server()
        let other = try await fixtures.server(certificate: "other")
        let target =
            "https://localhost:\(other.port)/echo".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        let pin = try fixtures.pin("server")
        await expectTLSFailure(pinned, "/redirect/302?to=\(target)") {
            $0.tls.caFile = fixtures.path("ca.pem")
            $0.tls.pinnedPublicKeys = [pin]
        }
    }

    @Test("a server that requires a client certificate accepts PEM and PKCS#12 identities, and refuses none")
    func mutualTLS() async throws {
        let server = try await fixtures.server(requireClientCertificate: true)
        await expectTLSFailure(server) { $0.tls.caFile = fixtures.path("ca.pem") }
        let pem = try await get(server) {
            $0.tls.caFile = fixtures.path("ca.pem")
            $0.tls.clientCertificate = .pem(
                certificateFile: fixtures.path("client.pem"), keyFile: fixtures.path("client.key"))
        }
        #expect(pem.status == 200)
        let pkcs12 = try await get(server) {
            $0.tls.caFile = fixtures.path("ca.pem")
            $0.tls.clientCertificate = .pkcs12(file: fixtures.path("client.p12"), password: "secret")
        }
        #expect(pkcs12.status == 200)
    }

    @Test("an expired certificate is refused")
    func expiredCertificate() async throws {
        let server = try await fixtures.server(certificate: "expired")
        await expectTLSFailure(server) { $0.tls.caFile = fixtures.path("ca.pem") }
    }

    @Test("a minimum of TLS 1.3 refuses a server that stops at TLS 1.2")
    func minimumVersion() async throws {
        let server = try await fixtures.server(maximumVersion: "1.2")
        #expect(try await get(server) { $0.tls.caFile = fixtures.path("ca.pem") }.status == 200)
        await expectTLSFailure(server) {
            $0.tls.caFile = fixtures.path("ca.pem")
            $0.tls.minimumVersion = .tls1_3
        }
    }
}
