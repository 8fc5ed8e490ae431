import Foundation
import RestingMultipart

/// A strict `multipart/form-data` parser (RFC 7578), independent of the encoder, so that tests check the
/// bytes on the wire rather than the encoder's own idea of them.
public struct ParsedPart: Equatable, Sendable {
    public var headers: [String]
    public var content: Data

    public init(headers: [String], content: Data) {
        self.headers = headers
        self.content = content
    }

    public var text: String { String(decoding: content, as: UTF8.self) }
}

public enum MultipartParser {
    public struct Malformed: Error { public let reason: String }

    public static func parse(_ body: Data, boundary: String) throws -> [ParsedPart] {
        let bytes = [UInt8](body)
        let opening = Array("--\(boundary)\r\n".utf8)
        let delimiter = Array("\r\n--\(boundary)".utf8)
        guard bytes.starts(with: opening) else { throw Malformed(reason: "no opening boundary") }
        var position = opening.count
        var parts: [ParsedPart] = []
        while true {
            guard let headerEnd = find(Array("\r\n\r\n".utf8), in: bytes, from: position) else {
                throw Malformed(reason: "unterminated part headers")
            }
            let headers = String(decoding: bytes[position..<headerEnd], as: UTF8.self).components(separatedBy: "\r\n")
            let contentStart = headerEnd + 4
            guard let contentEnd = find(delimiter, in: bytes, from: contentStart) else {
                throw Malformed(reason: "no delimiter after a part")
            }
            parts.append(ParsedPart(headers: headers, content: Data(bytes[contentStart..<contentEnd])))
            position = contentEnd + delimiter.count
            let rest = bytes[position...]
            if rest.elementsEqual("--\r\n".utf8) { return parts }
            guard rest.starts(with: "\r\n".utf8) else { throw Malformed(reason: "bad bytes after a delimiter") }
            position += 2
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        for index in start...(haystack.count - needle.count) where haystack[index] == needle[0] {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
        }
        return nil
    }
}

extension MultipartFormData {
    /// The whole body, read through a reader.
    public func readAll(chunkSize: Int = 64 * 1024) throws -> Data {
        let reader = makeReader()
        defer { reader.close() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 1)
        defer { buffer.deallocate() }
        var data = Data()
        while case let count = try reader.read(into: buffer), count > 0 { data.append(contentsOf: buffer[0..<count]) }
        return data
    }
}
