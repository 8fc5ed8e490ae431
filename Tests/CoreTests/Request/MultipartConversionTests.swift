import Foundation
import Testing

@testable import RestingCore

@Suite("Multipart requests")
struct MultipartConversionTests {
    struct Upload: Codable, Sendable {
        let caption: String
        let file: MultipartFile
    }

    let upload = Endpoint<Upload, Nothing>(.post, "/upload", encoding: .multipartFormData)

    private func convert(_ request: RestingRequest<Upload, Nothing>, encoder: MultipartFormDataEncoder = .init()) throws
        -> HTTPRequest
    {
        try RestingRequestConverter(configuration: .init(multipartFormDataEncoder: encoder))
            .toHTTPRequest(request, baseUrl: "https://api.example.com")
    }

    private func temporaryFile(_ contents: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("rk-\(UUID().uuidString).txt")
        try Data(contents.utf8).write(to: url)
        return url
    }

    @Test("a .multipartFormData endpoint streams the form with its exact length and its boundary's Content-Type")
    func streamedForm() throws {
        let file = try temporaryFile("hello")
        defer { try? FileManager.default.removeItem(at: file) }
        var request = RestingRequest(endpoint: upload, body: Upload(caption: "Hi", file: MultipartFile(url: file)))
        request.headers = ["Content-Type": "multipart/form-data"]  // a boundary-less type cannot describe the body
        let converted = try convert(request)
        let contentType = try #require(converted.headers["Content-Type"])
        #expect(contentType.hasPrefix("multipart/form-data; boundary=RestingKit-"))
        guard case .stream = converted.body.source else {
            Issue.record("the form is streamed, not collected in memory")
            return
        }
        let bytes = try converted.body.collectSynchronously()
        #expect(Int64(bytes.count) == converted.body.contentLength)
        #expect(
            String(decoding: bytes, as: UTF8.self).contains(
                "filename=\"\(file.lastPathComponent)\"\r\nContent-Type: text/plain\r\n\r\nhello\r\n"))
        #expect(try converted.body.collectSynchronously() == bytes, "read again for a retry, the body is the same")
    }

    @Test("the converter's encoder strategies apply")
    func strategies() throws {
        let file = try temporaryFile("x")
        defer { try? FileManager.default.removeItem(at: file) }
        struct Tagged: Codable, Sendable {
            let userName: String
            let file: MultipartFile
        }
        var encoder = MultipartFormDataEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let endpoint = Endpoint<Tagged, Nothing>(.post, "/upload", encoding: .multipartFormData)
        let converted = try RestingRequestConverter(configuration: .init(multipartFormDataEncoder: encoder))
            .toHTTPRequest(
                RestingRequest(endpoint: endpoint, body: Tagged(userName: "a", file: MultipartFile(url: file))),
                baseUrl: "https://api.example.com")
        #expect(
            String(decoding: try converted.body.collectSynchronously(), as: UTF8.self).contains("name=\"user_name\""))
    }

    @Test("a missing file fails the conversion with bodyUnreadable naming it")
    func missingFile() {
        let missing = URL(fileURLWithPath: "/nonexistent/photo.jpg")
        #expect {
            try convert(RestingRequest(endpoint: upload, body: Upload(caption: "", file: MultipartFile(url: missing))))
        } throws: { error in
            guard case .bodyUnreadable(let reason) = error as? RestingError else { return false }
            return reason.contains("/nonexistent/photo.jpg")
        }
    }

    @Test("a file is not a query parameter")
    func fileInQuery() {
        let endpoint = Endpoint<Upload, Nothing>(.post, "/upload", encoding: .query)
        #expect {
            try RestingRequestConverter().toHTTPRequest(
                RestingRequest(
                    endpoint: endpoint,
                    body: Upload(caption: "", file: MultipartFile(url: URL(fileURLWithPath: "/tmp/a")))),
                baseUrl: "https://api.example.com")
        } throws: { error in
            guard case .encodingFailed(let reason) = error as? RestingError else { return false }
            return reason.contains("multipartFormData")
        }
    }
}
