import Foundation
import RestingKit
import RestingServerHarness
import Synchronization

extension Demo {
    struct PhotoUpload: Encodable, Sendable {
        let caption: String
        let file: MultipartFile
    }

    struct StoredUpload: Decodable, Sendable {
        let name: String
        let size: Int64
        let sha256: String
        let fields: [[String]]
    }

    /// image_server paces these transfers (`?rate=`) so that the progress bars have something to show.
    static let demoRate = URLQueryItem(name: "rate", value: "\(16 * 1024 * 1024)")

    func streaming() async throws {
        section("10. Uploads and downloads: multipart streamed from disk, a download cut midway and resumed")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "restingkit-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let original = directory.appendingPathComponent("holiday.jpg")
        try FileHandle(forReadingFrom: URL(fileURLWithPath: "/dev/urandom")).read(upToCount: 8 * 1024 * 1024)?.write(
            to: original)
        let digest = try FileDigest.sha256Hex(of: original)

        let upload = Endpoint<PhotoUpload, StoredUpload>(.post, "/upload", encoding: .multipartFormData)
        var request = RestingRequest(
            endpoint: upload, body: PhotoUpload(caption: "Sunset", file: MultipartFile(url: original)))
        request.queryItems = [Self.demoRate]
        let uploadBar = ProgressBar(label: "upload")
        let stored = try await client().upload(request)
            .progress { uploadBar.show($0.bytesSent, of: $0.totalBytesToSend) }
            .value.body
        uploadBar.end()
        try check(stored.sha256 == digest, "the server stored other bytes than the file's")
        print(
            "  POST /upload (multipart, 8 MiB from disk) → stored as \(stored.name), SHA-256 \(digest.prefix(16))… matches"
        )

        let storedFile = Endpoint<Nothing, Data>(.get, "/uploads/{{name}}", encoding: .query)
        let destination = directory.appendingPathComponent("downloaded.jpg")
        var cut = RestingRequest(endpoint: storedFile, pathVariables: ["name": stored.name])
        cut.queryItems = [URLQueryItem(name: "cut_after", value: "\(3 * 1024 * 1024)")]
        do {
            _ = try await client().download(cut, to: destination).value
            try check(false, "the server should have cut the connection")
        } catch RestingError.transportFailed(let failure) {
            print(
                "  GET /uploads/\(stored.name), cut by the server after 3 MiB → \(failure.kind); the partial file is kept"
            )
        }

        var resumed = RestingRequest(endpoint: storedFile, pathVariables: ["name": stored.name])
        resumed.queryItems = [Self.demoRate]
        let downloadBar = ProgressBar(label: "download")
        let file = try await client().download(resumed, to: destination)
            .progress { downloadBar.show($0.bytesReceived, of: $0.totalBytesToReceive) }
            .value
        downloadBar.end()
        let downloadedDigest = try FileDigest.sha256Hex(of: destination)
        try check(downloadedDigest == digest && file.resumedFrom > 0, "the resumed download differs from the original")
        print(
            "  downloaded again, resumed from byte \(file.resumedFrom) (HTTP \(file.status)) → SHA-256 \(downloadedDigest.prefix(16))… matches"
        )
    }
}

/// A one-line progress bar on standard output, redrawn in place.
final class ProgressBar: Sendable {
    private let label: String
    private let lastPercent = Mutex(-1)

    init(label: String) { self.label = label }

    func show(_ done: Int64, of total: Int64?) {
        guard let total, total > 0 else { return }
        let percent = Int(min(100, done * 100 / total))
        guard
            lastPercent.withLock({ last in
                defer { last = percent }
                return last != percent
            })
        else { return }
        let filled = percent / 5
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: 20 - filled)
        let amounts = String(
            format: "%3d%%  %.1f/%.1f MiB", percent, Double(done) / 1_048_576, Double(total) / 1_048_576)
        print("\r  \(label.padding(toLength: 8, withPad: " ", startingAt: 0)) [\(bar)] \(amounts)", terminator: "")
        fflush(nil)  // the line has no newline yet
    }

    func end() { print("") }
}
