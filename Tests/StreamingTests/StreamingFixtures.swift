import Foundation
import RestingCore
import RestingCurl
import RestingServerHarness
import RestingTestSupport
import RestingURLSession
import Testing

/// The transports every streaming test runs on.
enum Transport: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case curl, urlSession

    var testDescription: String { rawValue }

    /// One client per transport for the whole run, as an app would keep one.
    private static let curlClient = Result { try CurlClient() }
    private static let urlSessionClient = URLSessionClient()

    func client() throws -> any HTTPClient {
        switch self {
        case .curl: try Self.curlClient.get()
        case .urlSession: Self.urlSessionClient
        }
    }
}

/// An image_server of the streaming tests, storing uploads in a directory the tests can inspect and change.
enum UploadServer {
    static let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "rk-uploads-\(UUID().uuidString)")
    static let shared = Task {
        try await LocalServer.start(script: LocalServer.imageServerScript, arguments: ["--uploads", directory.path])
    }

    /// The bytes image_server stored for `upload`.
    static func storedBytes(_ upload: StoredUpload) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(upload.name))
    }

    static func client(_ transport: Transport, interceptors: [any RestingInterceptor] = []) async throws
        -> RestingClient
    {
        RestingClient(
            baseUrl: try await shared.value.baseURL, httpClient: try transport.client(), interceptors: interceptors)
    }
}

/// What image_server answers for an upload.
struct StoredUpload: Decodable, Sendable {
    struct Part: Decodable, Sendable, Equatable {
        let name: String
        let filename: String?
        let contentType: String?
        let size: Int64
        let sha256: String
    }

    let name: String
    let size: Int64
    let sha256: String
    let filename: String?
    let fields: [[String]]?
    let parts: [Part]?
}

/// A directory of its own per test, removed when the test ends.
final class Scratch: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("rk-streaming-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file of `size` random bytes (different per call), from the kernel: cheap even in a sanitizer build,
    /// so the test never holds a cooperative thread for long.
    func randomFile(_ name: String, size: Int) throws -> (url: URL, data: Data) {
        let source = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom"))
        defer { try? source.close() }
        let data = try source.read(upToCount: size) ?? Data()
        let url = url.appendingPathComponent(name)
        try data.write(to: url)
        return (url, data)
    }

    /// The names in the directory.
    var contents: [String] { (try? FileManager.default.contentsOfDirectory(atPath: url.path).sorted()) ?? [] }

    /// How many of this process's file descriptors point into the directory: what a leaked handle would hold.
    var openDescriptors: Int {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.filter { descriptor in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"))?.hasPrefix(
                url.path) ?? false
        }.count
    }
}

extension Collector where Value == TransferProgress {
    /// Whether the reports never go backwards.
    var isMonotonic: Bool {
        zip(all, all.dropFirst()).allSatisfy { $0.bytesSent <= $1.bytesSent && $0.bytesReceived <= $1.bytesReceived }
    }
}
