import Foundation
import RestingKit
import Testing

@Suite("DateFormatter strategies for form fields")
struct DateFormatterStrategyTests {
    struct Dated: Encodable { let at: Date }

    private let date = Date(timeIntervalSince1970: 1_714_564_800)
    private let formatter: DateFormatter = {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy/MM/dd"
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.locale = Locale(identifier: "en_US_POSIX")
        return formatter
    }()

    @Test("a query field uses the formatter")
    func query() throws {
        var encoder = URLQueryEncoder()
        encoder.dateEncodingStrategy = .formatted(formatter)
        #expect(try encoder.encode(Dated(at: date)) == [URLQueryItem(name: "at", value: "2024/05/01")])
    }

    @Test("a multipart field uses the formatter")
    func multipart() throws {
        var encoder = MultipartFormDataEncoder()
        encoder.dateEncodingStrategy = .formatted(formatter)
        let form = try encoder.encode(Dated(at: date))
        let reader = form.makeReader()
        defer { reader.close() }
        var body = [UInt8](repeating: 0, count: Int(form.contentLength))
        let count = try body.withUnsafeMutableBytes { try reader.read(into: $0) }
        #expect(count == body.count)
        #expect(String(decoding: body, as: UTF8.self).contains("name=\"at\"\r\n\r\n2024/05/01\r\n"))
    }
}
