import Foundation
import RestingFuzzTargets
import Testing

@testable import RestingMultipart

@Suite("MultipartFormData")
struct MultipartFormDataTests {
    struct Upload: Encodable {
        let title: String
        let file: MultipartFile
        let note: String
    }

    @Test("the body is byte for byte the RFC 7578 layout, with the file read from disk")
    func exactBytes() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("notes.txt", Data("line 1\r\nline 2".utf8))
        let form = try MultipartFormDataEncoder().encode(
            Upload(title: "Hello", file: MultipartFile(url: url), note: "é"))
        let b = form.boundary
        let expected = """
            --\(b)\r
            Content-Disposition: form-data; name="title"\r
            \r
            Hello\r
            --\(b)\r
            Content-Disposition: form-data; name="file"; filename="notes.txt"\r
            Content-Type: text/plain\r
            \r
            line 1\r
            line 2\r
            --\(b)\r
            Content-Disposition: form-data; name="note"\r
            \r
            é\r
            --\(b)--\r

            """
        #expect(try form.readAll() == Data(expected.utf8))
        #expect(form.contentType == "multipart/form-data; boundary=\(b)")
    }

    @Test("the announced length is exact, whatever the reader's buffer size", arguments: [1, 7, 100, 65_536])
    func exactLength(chunkSize: Int) throws {
        let directory = try TemporaryDirectory()
        let big = try directory.file("big.bin", Data((0..<200_000).map { UInt8($0 % 251) }))
        let empty = try directory.file("empty.bin", Data())
        struct Two: Encodable {
            let a: MultipartFile
            let b: MultipartFile
            let c: String
        }
        let form = try MultipartFormDataEncoder().encode(
            Two(a: MultipartFile(url: big), b: MultipartFile(url: empty), c: "end"))
        let body = try form.readAll(chunkSize: chunkSize)
        #expect(Int64(body.count) == form.contentLength)
        let parts = try MultipartParser.parse(body, boundary: form.boundary)
        #expect(parts.map(\.content.count) == [200_000, 0, 3])
    }

    @Test("every reader starts from the first byte, so the body can be sent again")
    func replayable() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("a.bin", Data(repeating: 7, count: 10_000))
        let form = try MultipartFormDataEncoder().encode(["file": MultipartFile(url: url)])
        let first = try form.readAll(chunkSize: 333)
        #expect(try form.readAll() == first)
    }

    @Test("the boundary is random and never inside an in-memory part")
    func boundary() throws {
        let one = try MultipartFormData(parts: [.text("a", "x")])
        let two = try MultipartFormData(parts: [.text("a", "x")])
        #expect(one.boundary != two.boundary)
        #expect(one.boundary.hasPrefix("RestingKit-") && one.boundary.count <= 70)
        var candidates = ["first", "second"]
        let form = try MultipartFormData(parts: [.text("a", "the first candidate is in here")]) {
            candidates.removeFirst()
        }
        #expect(form.boundary == "second")
    }

    @Test("a file that shrinks or grows after encoding fails the read with fileChanged, not a short body")
    func fileChanged() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("a.bin", Data(repeating: 1, count: 1000))
        let form = try MultipartFormDataEncoder().encode(["file": MultipartFile(url: url)])
        for replacement in [Data(repeating: 1, count: 10), Data(repeating: 1, count: 2000)] {
            try replacement.write(to: url)
            #expect(throws: MultipartError.fileChanged(url, expectedLength: 1000)) { try form.readAll() }
        }
    }

    @Test("a file deleted after encoding fails the read with fileUnreadable")
    func fileDeleted() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("a.bin", Data(repeating: 1, count: 1000))
        let form = try MultipartFormDataEncoder().encode(["file": MultipartFile(url: url)])
        try FileManager.default.removeItem(at: url)
        #expect(throws: MultipartError.fileUnreadable(url, reason: "No such file or directory")) { try form.readAll() }
    }

    @Test("write(to:) writes exactly the streamed body")
    func writeToFile() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("a.bin", Data((0..<3_000_000).map { UInt8($0 % 256) }))
        let form = try MultipartFormDataEncoder().encode(["title": "x"].mapValues { $0 as String })
        let withFile = try MultipartFormData(parts: form.parts + [try .file("file", MultipartFile(url: url))])
        let output = directory.url.appendingPathComponent("body")
        try withFile.write(to: output)
        #expect(try Data(contentsOf: output) == (try withFile.readAll()))
        #expect(Int64(try Data(contentsOf: output).count) == withFile.contentLength)
    }
}
