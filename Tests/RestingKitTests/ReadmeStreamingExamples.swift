import Foundation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import Testing

// The README's multipart, upload and download examples, verbatim between the markers, against image_server.

// snippet: multipart-model
struct ImageUploadModel: Encodable, Sendable {
    let caption: String
    let file: MultipartFile
}

struct UploadReceipt: Decodable, Sendable {
    let name: String
    let size: Int64
    let sha256: String
}
// end snippet

@Suite("README examples: multipart, uploads and downloads")
struct ReadmeStreamingExamples {
    let server: LocalServer
    let restingClient: RestingClient
    let folder: URL
    var baseUrl: String { server.baseURL }

    init() async throws {
        server = try await LocalServer.sharedImageServer.value
        restingClient = RestingClient(baseUrl: server.baseURL)
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("rk-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    private func file(_ name: String, size: Int) throws -> (URL, Data) {
        let data = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let url = folder.appendingPathComponent(name)
        try data.write(to: url)
        return (url, data)
    }

    @Test("a multipart upload with a file, and its progress")
    func multipartUpload() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (imageURL, image) = try file("sunset.jpg", size: 300_000)
        let output = Collector<String>()
        let receipt = try await ExampleOutput.$lines.withValue(output) {
            // snippet: multipart-upload
            let multipartEndpoint = Endpoint<ImageUploadModel, UploadReceipt>(
                .post, "/upload", encoding: .multipartFormData)
            let request = RestingRequest(
                endpoint: multipartEndpoint,
                body: ImageUploadModel(caption: "Sunset", file: MultipartFile(url: imageURL)))
            let receipt = try await restingClient.perform(request)
                .progress { progress in print("Upload \(Int(progress.fractionCompleted * 100))% completed") }
                .value.body
            // end snippet
            return receipt
        }
        #expect(receipt.sha256 == SHA256.hex(image))
        await output.wait { $0.last == "Upload 100% completed" }
    }

    @Test("configuring the multipart encoder")
    func encoderConfiguration() throws {
        // snippet: multipart-encoder
        var formDataEncoder = MultipartFormDataEncoder()
        formDataEncoder.keyEncodingStrategy = .convertToSnakeCase
        formDataEncoder.dateEncodingStrategy = .secondsSince1970
        formDataEncoder.dataEncodingStrategy = .raw
        formDataEncoder.arrayEncoding = .indexed
        let configuration = RestingRequestConverter.Configuration(multipartFormDataEncoder: formDataEncoder)
        let snakeCaseClient = RestingClient(
            baseUrl: baseUrl, requestConverter: RestingRequestConverter(configuration: configuration))
        // end snippet
        let converter = try #require(snakeCaseClient.requestConverter as? RestingRequestConverter)
        if case .indexed = converter.configuration.multipartFormDataEncoder.arrayEncoding {
        } else {
            Issue.record("the converter keeps the encoder's configuration")
        }
    }

    @Test("a raw upload from a file, then a download to a file")
    func rawUploadAndDownload() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let (videoURL, video) = try file("clip.mp4", size: 1_000_000)
        let downloadsFolder = folder
        let output = Collector<String>()
        try await ExampleOutput.$lines.withValue(output) {
            // snippet: file-upload
            let putFile = Endpoint<URL, UploadReceipt>(
                .put, "/upload/{{name}}", encoding: .raw(contentType: "video/mp4"))
            let receipt = try await restingClient.perform(
                RestingRequest(endpoint: putFile, body: videoURL, pathVariables: ["name": "clip.mp4"])
            )
            .value.body
            // end snippet
            #expect(receipt.size == Int64(video.count))

            // snippet: download
            let storedFile = Endpoint<Nothing, Data>(.get, "/uploads/{{name}}")
            let destination = downloadsFolder.appendingPathComponent("clip.mp4")
            let request = RestingRequest(endpoint: storedFile, pathVariables: ["name": receipt.name])
            do {
                let file = try await restingClient.download(request, to: destination)
                    .progress { print("\($0.bytesReceived) of \($0.totalBytesToReceive ?? 0) bytes") }
                    .value
                print(
                    "\(file.size) bytes in \(file.url.lastPathComponent), \(file.resumedFrom) of them from an earlier attempt"
                )
            } catch RestingError.transportFailed {
                // The partial file is kept: calling download again continues it with a Range request.
            } catch RestingError.resumeRefused(let refusal) {
                // The remote file changed, or the server ignores ranges; the partial file is gone.
                print("Starting over: \(refusal)")
            }
            // end snippet
            #expect(try Data(contentsOf: destination) == video)
        }
        #expect(output.all.contains("1000000 bytes in clip.mp4, 0 of them from an earlier attempt"))
    }
}
