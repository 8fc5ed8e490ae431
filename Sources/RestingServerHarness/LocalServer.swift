import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A bundled Python server — `image_server/server.py`, or the conformance suite's server — started on a free
/// loopback port for the demo and the tests.
///
/// The script prints `… listening on http://127.0.0.1:<port>` first. It is started with `--exit-with-stdin`: it exits
/// when this process closes its standard input, which also happens when this process dies, so no server outlives the
/// run that started it.
public final class LocalServer: Sendable {
    public enum StartError: Error, CustomStringConvertible {
        case scriptNotFound(String)
        case didNotStart(String)

        public var description: String {
            switch self {
            case .scriptNotFound(let path): "server script not found at \(path)"
            case .didNotStart(let output): "server did not start: \(output)"
            }
        }
    }

    /// `http://127.0.0.1:<port>`.
    public let baseURL: String
    public let port: Int
    private let process: ChildProcess

    /// One image_server shared by every test of this process, started on first use.
    public static let sharedImageServer = Task { try await start(script: imageServerScript) }
    /// One conformance server shared by every test of this process, started on first use.
    public static let sharedConformanceServer = Task { try await start(script: conformanceServerScript) }

    public static var conformanceServerScript: URL {
        repository.appendingPathComponent("Tests/Conformance/conformance_server.py")
    }

    /// Starts a server without blocking the caller's thread: the start-up waits on a Dispatch thread, never on
    /// the cooperative pool, which has as few threads as the machine has cores.
    public static func start(script: URL, arguments: [String] = []) async throws -> LocalServer {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try LocalServer(script: script, arguments: arguments) })
            }
        }
    }

    /// The repository, found from this source file's location.
    public static var repository: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    public static var imageServerScript: URL { repository.appendingPathComponent("image_server/server.py") }

    /// The JSON storage API of the newcomer guide's worked example.
    public static var storageServerScript: URL {
        repository.appendingPathComponent("Tests/StorageServer/storage_server.py")
    }

    /// Starts the server and waits until it listens.
    public init(script: URL, arguments: [String] = [], verbose: Bool = false) throws {
        guard FileManager.default.fileExists(atPath: script.path) else { throw StartError.scriptNotFound(script.path) }
        process = try ChildProcess(
            "/usr/bin/env",
            ["python3", script.path, "--host", "127.0.0.1", "--port", "0", "--exit-with-stdin"] + arguments
                + (verbose ? ["--verbose"] : []),
            pipingInput: true)

        // The first line is "<name> listening on http://127.0.0.1:<port>"; the end of output means it failed. The
        // servers print nothing after it.
        let text = (process.readLine() ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        process.closeOutput()
        guard let address = text.split(separator: " ").last,
            let port = address.split(separator: ":").last.flatMap({ Int($0) })
        else {
            process.send(SIGKILL)
            throw StartError.didNotStart(text)
        }
        self.port = port
        baseURL = String(address)
    }

    /// Stops the server: it exits when its standard input closes, and is reaped once released. Nothing waits
    /// here, so stopping never blocks a thread of the cooperative pool.
    public func stop() {
        process.closeInput()
    }

    /// Stops the server and returns once its process has exited, so that its port refuses connections. The
    /// wait happens on a Dispatch thread, never on the cooperative pool.
    public func stopAndWait() async {
        stop()
        await process.exitStatus()
    }

    deinit { stop() }
}

extension LocalServer {
    /// Waits until the server is holding a request tagged `?tag=<tag>`, by asking it (`GET /waiting`).
    public func waitUntilDelaying(tag: String, attempts: Int = 2_000) async throws {
        guard let url = URL(string: baseURL + "/waiting") else { throw StartError.didNotStart(baseURL) }
        for _ in 0..<attempts {
            let (data, _) = try await URLSession.shared.data(from: url)
            if try JSONDecoder().decode([String].self, from: data).contains(tag) { return }
        }
        throw StartError.didNotStart("the server never received the request tagged \(tag)")
    }
}
