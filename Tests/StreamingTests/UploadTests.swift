import Foundation
import RestingCore
import RestingTestSupport
import Testing

@Suite("Uploads to image_server")
struct UploadTests {
    struct PhotoUpload: Encodable {
        let caption: String
        let tags: [String]
        let file: MultipartFile
    }

    let upload = Endpoint<PhotoUpload, StoredUpload>(.post, "/upload", encoding: .multipartFormData)
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    @Test(
        "a multipart upload streams the file from disk and arrives whole, fields and parts as encoded",
        arguments: Transport.allCases)
    func multipart(transport: Transport) async throws {
        let (file, data) = try scratch.randomFile("holiday photo.jpg", size: 3 * 1024 * 1024 + 17)
        let client = try await UploadServer.client(transport)
        let progress = Collector<TransferProgress>()
        let body = PhotoUpload(caption: "Sunset", tags: ["sea", "sky"], file: MultipartFile(url: file))
        let stored = try await client.perform(RestingRequest(endpoint: upload, body: body))
            .progress { progress.append($0) }.value.body

        // The stored bytes themselves, read back from the server's directory.
        #expect(try UploadServer.storedBytes(stored) == data)
        #expect(stored.size == Int64(data.count))
        #expect(stored.name == "holiday_photo.jpg" || stored.name.hasPrefix("holiday_photo-"))
        #expect(stored.filename == "holiday photo.jpg")
        #expect(stored.fields == [["caption", "Sunset"], ["tags[]", "sea"], ["tags[]", "sky"]])
        #expect(stored.parts?.first?.contentType == nil)
        #expect(
            stored.parts?.last
                == StoredUpload.Part(
                    name: "file", filename: "holiday photo.jpg", contentType: "image/jpeg",
                    size: Int64(data.count), sha256: stored.sha256))

        let form = try MultipartFormDataEncoder().encode(body)
        await progress.wait { $0.last?.bytesSent == form.contentLength }
        #expect(progress.isMonotonic)
        #expect(progress.all.allSatisfy { $0.totalBytesToSend == form.contentLength })
    }

    @Test("a raw upload from a file, from memory and as a stream of unknown length", arguments: Transport.allCases)
    func raw(transport: Transport) async throws {
        let (file, data) = try scratch.randomFile("raw.bin", size: 1024 * 1024 + 3)
        let client = try await UploadServer.client(transport)
        let put = Endpoint<Data, StoredUpload>(
            .put, "/upload/{{name}}", encoding: .raw(contentType: "application/octet-stream"))
        let fromMemory = try await client.perform(
            RestingRequest(endpoint: put, body: data, pathVariables: ["name": "memory.bin"])
        ).value.body
        #expect(try UploadServer.storedBytes(fromMemory) == data)

        let progress = Collector<TransferProgress>()
        let fromFile = try await client.httpClient.send(
            HTTPRequest(method: .put, url: URL(string: "\(client.baseUrl)/upload/file.bin")!, body: .file(file))
        ) { progress.append($0) }
        #expect(fromFile.status == 201)
        #expect(
            try UploadServer.storedBytes(JSONDecoder().decode(StoredUpload.self, from: fromFile.body.bytes)) == data)
        await progress.wait { $0.last?.bytesSent == Int64(data.count) }
        #expect(progress.isMonotonic)

        let unknownLength = RequestBody.stream(contentLength: nil) { try RequestBody.file(file).makeReader() }
        let streamed = try await client.httpClient.send(
            HTTPRequest(method: .put, url: URL(string: "\(client.baseUrl)/upload/stream.bin")!, body: unknownLength)
        ) { _ in }
        #expect(
            try UploadServer.storedBytes(JSONDecoder().decode(StoredUpload.self, from: streamed.body.bytes)) == data)
    }

    @Test("an upload reports progress while it is under way, not only when it ends", arguments: Transport.allCases)
    func progressDuringUpload(transport: Transport) async throws {
        // Larger than loopback's socket buffers can grow to (several MiB each way), which would otherwise take most of
        // the body at once — a loaded run then saw a single report before the end.
        let (file, data) = try scratch.randomFile("paced.bin", size: 32 * 1024 * 1024)
        let client = try await UploadServer.client(transport)
        let progress = Collector<TransferProgress>()
        // The server reads at 64 MiB/s, so the upload takes half a second.
        let stored = try await client.httpClient.send(
            HTTPRequest(
                method: .put, url: URL(string: "\(client.baseUrl)/upload/paced.bin?rate=67108864")!, body: .file(file))
        ) { progress.append($0) }
        #expect(stored.status == 201)
        await progress.wait { $0.last?.bytesSent == Int64(data.count) }
        let partial = Set(progress.all.map(\.bytesSent).filter { $0 > 0 && $0 < Int64(data.count) })
        #expect(partial.count >= 2, "reports before the end: \(partial.sorted())")
        #expect(progress.isMonotonic)
    }

    @Test(
        "a multipart upload refused once with 503 is retried by RetryInterceptor and arrives whole",
        arguments: Transport.allCases)
    func retriedMultipart(transport: Transport) async throws {
        let (file, data) = try scratch.randomFile("retry.bin", size: 512 * 1024)
        var policy = RetryInterceptor.Policy()
        policy.retriesNonIdempotentMethods = true
        policy.baseDelay = .milliseconds(1)
        let client = try await UploadServer.client(transport, interceptors: [RetryInterceptor(policy: policy)])
        var request = RestingRequest(
            endpoint: upload, body: PhotoUpload(caption: "again", tags: [], file: MultipartFile(url: file)))
        request.queryItems = [URLQueryItem(name: "fail_once", value: UUID().uuidString)]
        let stored = try await client.perform(request).value.body
        #expect(try UploadServer.storedBytes(stored) == data)
        #expect(stored.fields == [["caption", "again"]])
    }

    @Test("a body over the server's limit is answered with 413 as a typed HTTP error", arguments: Transport.allCases)
    func tooLarge(transport: Transport) async throws {
        let (file, _) = try scratch.randomFile("big.bin", size: 256 * 1024)
        let client = try await UploadServer.client(transport)
        var request = RestingRequest(
            endpoint: upload, body: PhotoUpload(caption: "", tags: [], file: MultipartFile(url: file)))
        request.queryItems = [URLQueryItem(name: "limit", value: "1000")]
        await #expect {
            try await client.perform(request).value
        } throws: { error in
            guard case RestingError.httpError(let failure) = error else { return false }
            // The server closes a connection whose body it refused, and says so: the clients are shared by
            // every test, and one not told would send its next request into the close (a broken pipe).
            return failure.status == 413 && failure.headers["Connection"] == "close"
        }
    }

    @Test(
        "a file removed between encoding and sending fails with bodyUnreadable, and the server stores nothing",
        arguments: Transport.allCases)
    func fileVanishes(transport: Transport) async throws {
        let (file, _) = try scratch.randomFile("gone.bin", size: 1000)
        let form = try MultipartFormDataEncoder().encode(["file": MultipartFile(url: file)])
        try FileManager.default.removeItem(at: file)
        let client = try await UploadServer.client(transport)
        let request = HTTPRequest(
            method: .post, url: URL(string: "\(client.baseUrl)/upload")!,
            headers: ["Content-Type": form.contentType], body: .multipart(form))
        await #expect {
            try await client.httpClient.send(request) { _ in }
        } throws: { error in
            guard case RestingError.bodyUnreadable = error else { return false }
            return true
        }
    }

    @Test("a file missing when the request is built fails before anything is sent")
    func missingFileAtConversion() async throws {
        let client = try await UploadServer.client(.curl)
        let missing = scratch.url.appendingPathComponent("missing.jpg")
        await #expect {
            try await client.perform(
                RestingRequest(
                    endpoint: upload, body: PhotoUpload(caption: "", tags: [], file: MultipartFile(url: missing)))
            ).value
        } throws: { error in
            guard case RestingError.bodyUnreadable(let reason) = error else { return false }
            return reason.contains("missing.jpg")
        }
    }

    @Test("stored names are sanitised: no directory escapes, no overwrite, a suffix on a clash")
    func sanitisedNames() async throws {
        let (file, data) = try scratch.randomFile("evil.txt", size: 1000)
        let client = try await UploadServer.client(.curl)
        let escape = MultipartFile(url: file, filename: "../../etc/evil name \(UUID().uuidString.prefix(8)).txt")
        let first = try await client.perform(
            RestingRequest(endpoint: upload, body: PhotoUpload(caption: "", tags: [], file: escape))
        ).value.body
        let second = try await client.perform(
            RestingRequest(endpoint: upload, body: PhotoUpload(caption: "", tags: [], file: escape))
        ).value.body
        #expect(first.name.hasPrefix("evil_name_") && first.name.hasSuffix(".txt") && !first.name.contains("/"))
        #expect(second.name == first.name.replacingOccurrences(of: ".txt", with: "-1.txt"))
        #expect(try UploadServer.storedBytes(first) == data && UploadServer.storedBytes(second) == data)

        let put = Endpoint<Data, StoredUpload>(
            .put, "/upload/{{name}}", encoding: .raw(contentType: "application/octet-stream"))
        let raw = try await client.perform(
            RestingRequest(endpoint: put, body: data, pathVariables: ["name": "..\\a b?.bin"])
        ).value.body
        #expect(raw.name.hasPrefix("a_b_") && raw.name.hasSuffix(".bin"))
    }
}
