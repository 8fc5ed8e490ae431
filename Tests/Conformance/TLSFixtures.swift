import Foundation
import RestingServerHarness

/// Certificates made with `openssl` for the TLS tests (see `make_certificates.sh`), and HTTPS servers using them.
public struct TLSFixtures: Sendable {
    /// The folder holding the certificates and keys.
    public let directory: URL

    /// One set of certificates per test process, made on first use.
    public static let shared = Task { try await TLSFixtures.make() }

    private init(directory: URL) { self.directory = directory }

    /// Runs `make_certificates.sh`, waiting for it without holding a thread.
    private static func make() async throws -> TLSFixtures {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "restingkit-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = LocalServer.repository.appendingPathComponent("Tests/Conformance/make_certificates.sh")
        let (status, _) = try await ChildProcess.run("/bin/bash", [script.path, directory.path])
        guard status == 0 else {
            throw LocalServer.StartError.didNotStart("make_certificates.sh exited with \(status)")
        }
        return TLSFixtures(directory: directory)
    }

    /// The path of a fixture file, such as `ca.pem` or `client.p12`.
    public func path(_ file: String) -> String { directory.appendingPathComponent(file).path }

    /// The `sha256//…` pin of `server` or `other`.
    public func pin(_ certificate: String) throws -> String {
        try String(contentsOfFile: path("\(certificate).pin"), encoding: .utf8).trimmingCharacters(
            in: .whitespacesAndNewlines)
    }

    /// An HTTPS conformance server presenting `certificate`, optionally requiring client certificates, optionally
    /// limited to TLS 1.2. It stops when the returned value is released.
    public func server(
        certificate: String = "server", requireClientCertificate: Bool = false, maximumVersion: String? = nil
    ) async throws -> LocalServer {
        var arguments = ["--tls-cert", path("\(certificate).pem"), "--tls-key", path("\(certificate).key")]
        if requireClientCertificate { arguments += ["--client-ca", path("ca.pem")] }
        if let maximumVersion { arguments += ["--tls-max-version", maximumVersion] }
        return try await LocalServer.start(script: LocalServer.conformanceServerScript, arguments: arguments)
    }

    /// A forward proxy reached over TLS (`https_proxy.py`), presenting the CA-signed server certificate. It
    /// stops when the returned value is released.
    public func httpsProxy() async throws -> LocalServer {
        let script = LocalServer.repository.appendingPathComponent("Tests/Conformance/https_proxy.py")
        return try await LocalServer.start(
            script: script, arguments: ["--tls-cert", path("server.pem"), "--tls-key", path("server.key")])
    }
}
