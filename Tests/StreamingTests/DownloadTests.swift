import Foundation
import RestingCore
import RestingCurl
import RestingTestSupport
import RestingURLSession
import Testing

@Suite("Downloads to file from image_server")
struct DownloadTests {
    let storedFile = Endpoint<Nothing, Data>(.get, "/uploads/{{name}}", encoding: .query)
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// A file of `size` random bytes stored on image_server under a fresh name.
    private func remoteFile(size: Int) async throws -> (name: String, data: Data) {
        _ = try await UploadServer.shared.value  // which makes the directory
        let name = "download-\(UUID().uuidString).bin"
        let (local, data) = try scratch.randomFile(name, size: size)
        try FileManager.default.moveItem(at: local, to: UploadServer.directory.appendingPathComponent(name))
        return (name, data)
    }

    private func request(_ name: String, _ query: [String: String] = [:]) -> RestingRequest<Nothing, Data> {
        var request = RestingRequest(endpoint: storedFile, pathVariables: ["name": name])
        request.queryItems = query.map { URLQueryItem(name: $0.key, value: $0.value) }
        return request
    }

    @Test(
        "the body streams to the destination, with monotonic progress ending at the total, and no partial file left",
        arguments: Transport.allCases)
    func download(transport: Transport) async throws {
        let (name, data) = try await remoteFile(size: 4 * 1024 * 1024 + 5)
        let client = try await UploadServer.client(transport)
        let destination = scratch.url.appendingPathComponent("copy.bin")
        let progress = Collector<TransferProgress>()
        let file = try await client.download(request(name), to: destination).progress { progress.append($0) }.value
        #expect(file.url == destination)
        #expect(file.size == Int64(data.count))
        #expect(file.resumedFrom == 0)
        #expect(try Data(contentsOf: destination) == data)
        #expect(scratch.contents == ["copy.bin"])
        await progress.wait { $0.last?.bytesReceived == Int64(data.count) }
        #expect(progress.isMonotonic)
        #expect(progress.all.last?.totalBytesToReceive == Int64(data.count))
    }

    @Test(
        "after a cut connection the partial file stays, and the next download resumes it into a byte-identical file",
        arguments: Transport.allCases)
    func resumeAfterCut(transport: Transport) async throws {
        let (name, data) = try await remoteFile(size: 2 * 1024 * 1024)
        let client = try await UploadServer.client(transport)
        let destination = scratch.url.appendingPathComponent("resumed.bin")
        await #expect {
            try await client.download(request(name, ["cut_after": "700000"]), to: destination).value
        } throws: { error in
            guard case RestingError.transportFailed(let failure) = error else { return false }
            return failure.kind == .malformedResponse  // a body shorter than its Content-Length, on both transports
        }
        let partial = try Data(contentsOf: destination.appendingPathExtension("part"))
        #expect(partial.count > 0 && partial.count <= 700_000)
        #expect(partial == data.prefix(partial.count))
        #expect(!FileManager.default.fileExists(atPath: destination.path))

        let progress = Collector<TransferProgress>()
        let file = try await client.download(request(name), to: destination).progress { progress.append($0) }.value
        #expect(file.resumedFrom == Int64(partial.count))
        #expect(file.status == 206)
        #expect(try Data(contentsOf: destination) == data)
        #expect(scratch.contents == ["resumed.bin"])
        await progress.wait { $0.last?.bytesReceived == Int64(data.count) }
        #expect(progress.all.allSatisfy { $0.bytesReceived >= Int64(partial.count) })
    }

    @Test(
        "a remote file that changed since the partial download is refused with resumeRefused(.fileChanged), and the partial deleted",
        arguments: Transport.allCases)
    func fileChanged(transport: Transport) async throws {
        let (name, data) = try await remoteFile(size: 1024 * 1024)
        let client = try await UploadServer.client(transport)
        let destination = scratch.url.appendingPathComponent("changed.bin")
        _ = try? await client.download(request(name, ["cut_after": "300000"]), to: destination).value
        #expect(FileManager.default.fileExists(atPath: destination.path + ".part"))

        var changed = data
        changed[0] ^= 0xFF
        try changed.write(to: UploadServer.directory.appendingPathComponent(name))
        await #expect {
            try await client.download(request(name), to: destination).value
        } throws: { error in
            guard case RestingError.resumeRefused(.fileChanged) = error else { return false }
            return true
        }
        #expect(scratch.contents.isEmpty)

        let fresh = try await client.download(request(name), to: destination).value
        #expect(fresh.resumedFrom == 0)
        #expect(try Data(contentsOf: destination) == changed)
    }

    @Test("a server that ignores the range is refused with resumeRefused(.rangeIgnored)", arguments: Transport.allCases)
    func rangeIgnored(transport: Transport) async throws {
        let (name, _) = try await remoteFile(size: 1024 * 1024)
        let client = try await UploadServer.client(transport)
        let destination = scratch.url.appendingPathComponent("ignored.bin")
        _ = try? await client.download(request(name, ["cut_after": "300000"]), to: destination).value
        await #expect {
            try await client.download(request(name, ["ignore_range": "1"]), to: destination).value
        } throws: { error in
            guard case RestingError.resumeRefused(.rangeIgnored(status: 200)) = error else { return false }
            return true
        }
        #expect(scratch.contents.isEmpty)
    }

    @Test("resume: false starts over even when a partial file exists", arguments: Transport.allCases)
    func noResume(transport: Transport) async throws {
        let (name, data) = try await remoteFile(size: 600_000)
        let client = try await UploadServer.client(transport)
        let destination = scratch.url.appendingPathComponent("over.bin")
        _ = try? await client.download(request(name, ["cut_after": "100000"]), to: destination).value
        let file = try await client.download(request(name), to: destination, resume: false).value
        #expect(file.resumedFrom == 0)
        #expect(try Data(contentsOf: destination) == data)
    }

    @Test(
        "an error status fails with httpError, keeps its body in memory and writes no file",
        arguments: Transport.allCases)
    func errorStatus(transport: Transport) async throws {
        let client = try await UploadServer.client(transport)
        let destination = scratch.url.appendingPathComponent("missing.bin")
        await #expect {
            try await client.download(request("no-such-file.bin"), to: destination).value
        } throws: { error in
            guard case RestingError.httpError(let failure) = error else { return false }
            return failure.status == 404 && String(decoding: failure.body, as: UTF8.self).contains("no such upload")
        }
        #expect(scratch.contents.isEmpty)
    }

    @Test("an existing destination is replaced only once the new file is complete", arguments: Transport.allCases)
    func replacesDestination(transport: Transport) async throws {
        let (name, data) = try await remoteFile(size: 100_000)
        let client = try await UploadServer.client(transport)
        let destination = scratch.url.appendingPathComponent("existing.bin")
        try Data("old".utf8).write(to: destination)
        _ = try? await client.download(request(name, ["cut_after": "5000"]), to: destination).value
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
        _ = try await client.download(request(name), to: destination).value
        #expect(try Data(contentsOf: destination) == data)
    }

    @Test(
        "the response size limit guards memory: a larger body fails with responseTooLarge, a download to file does not",
        arguments: Transport.allCases)
    func sizeLimit(transport: Transport) async throws {
        let (name, data) = try await remoteFile(size: 300_000)
        let limited: any HTTPClient
        switch transport {
        case .curl:
            var configuration = CurlConfiguration()
            configuration.maximumResponseSize = 100_000
            limited = try CurlClient(configuration: configuration)
        case .urlSession:
            limited = URLSessionClient(maximumResponseSize: 100_000)
        }
        let client = RestingClient(baseUrl: try await UploadServer.shared.value.baseURL, httpClient: limited)
        await #expect {
            try await client.perform(request(name)).value
        } throws: { error in
            guard case RestingError.responseTooLarge(limit: 100_000) = error else { return false }
            return true
        }
        let destination = scratch.url.appendingPathComponent("large.bin")
        _ = try await client.download(request(name), to: destination).value
        #expect(try Data(contentsOf: destination) == data)
    }

    @Test(
        "a partial file that already holds every byte is completed from the server's 416, without a body",
        arguments: Transport.allCases)
    func alreadyComplete(transport: Transport) async throws {
        let (name, data) = try await remoteFile(size: 50_000)
        let client = try await UploadServer.client(transport)
        let head = try await client.httpClient.send(
            HTTPRequest(method: .head, url: try #require(URL(string: "\(client.baseUrl)/uploads/\(name)")))
        ) { _ in }
        let tag = try #require(head.headers["ETag"])
        let destination = scratch.url.appendingPathComponent("complete.bin")
        try data.write(to: destination.appendingPathExtension("part"))
        try Data(#"{"validator":\#(String(reflecting: tag))}"#.utf8)
            .write(to: destination.appendingPathExtension("part").appendingPathExtension("resume"))

        let file = try await client.download(request(name), to: destination).value
        #expect(file.status == 416)
        #expect(file.resumedFrom == Int64(data.count))
        #expect(try Data(contentsOf: destination) == data)
        #expect(scratch.contents == ["complete.bin"])
    }
}
