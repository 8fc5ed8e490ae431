import Foundation
import Testing

@testable import RestingMultipart

@Suite("MultipartFormDataEncoder")
struct MultipartFormDataEncoderTests {
    struct Profile: Encodable {
        let displayName: String
        let age: Int
        let isAdmin: Bool
        let nickname: String?
    }

    /// Field names and text values, in order.
    private func fields(_ value: some Encodable, _ configure: (inout MultipartFormDataEncoder) -> Void = { _ in })
        throws -> [[String]]
    {
        var encoder = MultipartFormDataEncoder()
        configure(&encoder)
        let form = try encoder.encode(value)
        return try form.parsed().map { part in
            [String(part.headers[0].dropFirst("Content-Disposition: form-data; ".count)), part.text]
        }
    }

    @Test("fields become parts in declaration order; a nil property is left out")
    func fieldOrder() throws {
        let parts = try fields(Profile(displayName: "Ada", age: 36, isAdmin: true, nickname: nil))
        #expect(parts == [["name=\"displayName\"", "Ada"], ["name=\"age\"", "36"], ["name=\"isAdmin\"", "true"]])
    }

    @Test("snake case and custom key strategies rename coding keys")
    func keyStrategies() throws {
        let profile = Profile(displayName: "Ada", age: 36, isAdmin: false, nickname: "a")
        let snake = try fields(profile) { $0.keyEncodingStrategy = .convertToSnakeCase }
        #expect(
            snake.map { $0[0] } == ["name=\"display_name\"", "name=\"age\"", "name=\"is_admin\"", "name=\"nickname\""])
        let custom = try fields(profile) { $0.keyEncodingStrategy = .custom { $0.uppercased() } }
        #expect(custom.first?[0] == "name=\"DISPLAYNAME\"")
    }

    struct Dated: Encodable { let at: Date }

    @Test(
        "every date strategy",
        arguments: [
            (MultipartFormDataEncoder.DateEncodingStrategy.iso8601, "2024-05-01T12:00:00Z"),
            (.secondsSince1970, "1714564800.0"),
            (.millisecondsSince1970, "1714564800000.0"),
            (.custom { "day \(Int($0.timeIntervalSince1970) / 86_400)" }, "day 19844"),
        ])
    func dateStrategies(strategy: MultipartFormDataEncoder.DateEncodingStrategy, expected: String) throws {
        let parts = try fields(Dated(at: Date(timeIntervalSince1970: 1_714_564_800))) {
            $0.dateEncodingStrategy = strategy
        }
        #expect(parts == [["name=\"at\"", expected]])
    }

    @Test("deferred dates encode as seconds since 2001 (formatted dates: RestingKitTests' DateFormatterStrategyTests)")
    func deferredDates() throws {
        let date = Date(timeIntervalSince1970: 1_714_564_800)
        #expect(
            try fields(Dated(at: date)) { $0.dateEncodingStrategy = .deferredToDate }
                == [["name=\"at\"", "\(date.timeIntervalSinceReferenceDate)"]])
    }

    struct Blob: Encodable { let payload: Data }

    @Test("raw data is an octet-stream part with the bytes as they are")
    func rawData() throws {
        let bytes = Data([0, 1, 2, 0xFF, 0x0D, 0x0A])
        let part = try #require(try MultipartFormDataEncoder().encode(Blob(payload: bytes)).parsed().first)
        #expect(
            part.headers == [
                "Content-Disposition: form-data; name=\"payload\"", "Content-Type: application/octet-stream",
            ])
        #expect(part.content == bytes)
    }

    @Test("base64 and custom data strategies produce text fields")
    func textData() throws {
        let blob = Blob(payload: Data("hi".utf8))
        #expect(try fields(blob) { $0.dataEncodingStrategy = .base64 } == [["name=\"payload\"", "aGk="]])
        #expect(
            try fields(blob) { $0.dataEncodingStrategy = .custom { "\($0.count) bytes" } } == [
                ["name=\"payload\"", "2 bytes"]
            ])
    }

    struct Tagged: Encodable {
        let tags: [String?]
        let owner: Owner
        struct Owner: Encodable {
            let id: Int
            let roles: [String]
        }
    }

    @Test("arrays are named by strategy, nested values a[b], and nil elements keep their place")
    func arraysAndNesting() throws {
        let value = Tagged(tags: ["a", nil, "c"], owner: .init(id: 7, roles: ["x"]))
        #expect(
            try fields(value) == [
                ["name=\"tags[]\"", "a"], ["name=\"tags[]\"", ""], ["name=\"tags[]\"", "c"],
                ["name=\"owner[id]\"", "7"], ["name=\"owner[roles][]\"", "x"],
            ])
        #expect(
            try fields(value) { $0.arrayEncoding = .indexed }.map { $0[0] } == [
                "name=\"tags[0]\"", "name=\"tags[1]\"", "name=\"tags[2]\"", "name=\"owner[id]\"",
                "name=\"owner[roles][0]\"",
            ])
        #expect(
            try fields(value) { $0.arrayEncoding = .repeatedKey }.map { $0[0] }.prefix(3) == [
                "name=\"tags\"", "name=\"tags\"", "name=\"tags\"",
            ])
    }

    @Test("dictionaries are encoded with sorted keys, so the body is the same on every run")
    func dictionaries() throws {
        #expect(try fields(["b": 2, "a": 1, "c": 3]).map { $0[1] } == ["1", "2", "3"])
    }

    struct Upload: Encodable {
        let caption: String
        let file: MultipartFile
    }

    @Test("a MultipartFile is a file part with its name and the type of its extension")
    func filePart() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("sunset.JPG", Data("jpeg bytes".utf8))
        let parts = try MultipartFormDataEncoder().encode(Upload(caption: "Sunset", file: MultipartFile(url: url)))
            .parsed()
        #expect(parts.count == 2)
        #expect(
            parts[1].headers == [
                "Content-Disposition: form-data; name=\"file\"; filename=\"sunset.JPG\"", "Content-Type: image/jpeg",
            ])
        #expect(parts[1].text == "jpeg bytes")
        let renamed = try MultipartFormDataEncoder()
            .encode(Upload(caption: "", file: MultipartFile(url: url, filename: "a\"b.bin", mimeType: "x/y"))).parsed()
        #expect(
            renamed[1].headers == [
                "Content-Disposition: form-data; name=\"file\"; filename=\"a%22b.bin\"", "Content-Type: x/y",
            ])
    }

    @Test("a missing file or a directory fails at encode time with fileUnreadable")
    func unreadableFiles() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.url.appendingPathComponent("missing.png")
        #expect(throws: MultipartError.fileUnreadable(missing, reason: "No such file or directory")) {
            try MultipartFormDataEncoder().encode(Upload(caption: "", file: MultipartFile(url: missing)))
        }
        #expect(throws: MultipartError.fileUnreadable(directory.url, reason: "not a regular file")) {
            try MultipartFormDataEncoder().encode(Upload(caption: "", file: MultipartFile(url: directory.url)))
        }
    }

    @Test("a value without keys cannot become fields")
    func topLevelArray() {
        #expect {
            try MultipartFormDataEncoder().encode(["a", "b"])
        } throws: { error in
            guard case MultipartError.invalidValue(let reason) = error else { return false }
            return reason.contains("keyed top-level value")
        }
    }

    @Test("a line break in a filename or a content type is refused, not sent as a forged header")
    func headerInjection() throws {
        let directory = try TemporaryDirectory()
        let url = try directory.file("a.txt", Data("x".utf8))
        for file in [
            MultipartFile(url: url, filename: "a\r\nX-Evil: 1"), MultipartFile(url: url, mimeType: "text/plain\nX: y"),
        ] {
            #expect {
                try MultipartFormDataEncoder().encode(Upload(caption: "", file: file))
            } throws: { error in
                guard case MultipartError.invalidValue = error else { return false }
                return true
            }
        }
    }

    @Test("MultipartFile travels as JSON too, so a stored request keeps it")
    func fileIsCodable() throws {
        let file = MultipartFile(url: URL(fileURLWithPath: "/tmp/a.pdf"))
        let decoded = try JSONDecoder().decode(MultipartFile.self, from: JSONEncoder().encode(file))
        #expect(decoded == file)
        #expect(decoded.mimeType == "application/pdf")
    }

    @Test(
        "media types come from our own table, whatever the case of the extension",
        arguments: [
            ("png", "image/png"), ("JPEG", "image/jpeg"), (".pdf", "application/pdf"), ("json", "application/json"),
            ("mp4", "video/mp4"), ("unknownext", "application/octet-stream"), ("", "application/octet-stream"),
        ])
    func mediaTypes(pathExtension: String, expected: String) {
        #expect(MIMEType.forExtension(pathExtension) == expected)
    }
}
