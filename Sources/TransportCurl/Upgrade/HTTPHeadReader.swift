import CCurl
import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads an HTTP/1.1 response head from the bytes of an upgrade's connection (``UpgradeExchange``): the status line
/// as RFC 9112 §4 allows it, fields without obsolete line folding, within ``UpgradeExchange/maximumHeadSize``.
struct HTTPHeadReader {
    struct Head {
        var status: Int
        var headers: HTTPHeaderFields
    }

    private var buffer: [UInt8] = []
    /// Bytes after the head's blank line.
    private var remainder: [UInt8] = []

    /// Takes the next bytes; the head once its blank line has arrived.
    mutating func take(_ bytes: Data) throws(RestingError) -> Head? {
        let searchFrom = max(0, buffer.count - 3)
        buffer.append(contentsOf: bytes)
        guard let end = Self.blankLine(in: buffer, from: searchFrom) else {
            guard buffer.count <= UpgradeExchange.maximumHeadSize else {
                throw UpgradeExchange.malformed("a response head longer than \(UpgradeExchange.maximumHeadSize) bytes")
            }
            return nil
        }
        remainder = Array(buffer[(end + 4)...])
        return try Self.parse(buffer[..<end])
    }

    /// What came after the head.
    mutating func takeRemainder() -> Data {
        defer { remainder = [] }
        return Data(remainder)
    }

    private static func blankLine(in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in start...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private static func parse(_ head: ArraySlice<UInt8>) throws(RestingError) -> Head {
        var lines = head.split(separator: 10, omittingEmptySubsequences: false).map { line in
            line.last == 13 ? line.dropLast() : line
        }
        let statusLine = Array(lines.removeFirst())
        if let fault = statusLine.withUnsafeBufferPointer({ HeaderLine.statusLineFault($0) }) {
            throw UpgradeExchange.malformed(fault)
        }
        guard let status = Int(String(decoding: statusLine[9..<12], as: UTF8.self)) else {
            throw UpgradeExchange.malformed("the status code is not three digits")
        }
        var headers = HTTPHeaderFields()
        for line in lines {
            guard let first = line.first, first != 32, first != 9 else {
                throw UpgradeExchange.malformed("a folded or empty header line")
            }
            guard let colon = line.firstIndex(of: 58) else {
                throw UpgradeExchange.malformed("a header line without ':'")
            }
            let name = String(decoding: line[..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self).trimmingWhitespace
            headers.add(name: name, value: value)
        }
        do {
            try headers.validate()
        } catch {
            throw UpgradeExchange.malformed("an invalid header field: \(error)")
        }
        return Head(status: status, headers: headers)
    }
}

/// Reads a response body that is not an upgrade from an upgrade's connection: by `Content-Length`, by its chunks
/// (trailers dropped), or to the connection's end; within `limit` bytes.
enum HTTPBodyReader {
    static func read(head: HTTPHeadReader.Head, from connection: CurlUpgradedConnection, limit: Int64) async throws
        -> Data
    {
        if head.headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            return try await readChunked(from: connection, limit: limit)
        }
        let announced = head.headers["Content-Length"].map { Int64($0.trimmingWhitespace) }
        if let announced {
            guard let length = announced, length >= 0 else {
                throw UpgradeExchange.malformed("an invalid Content-Length")
            }
            guard length <= limit else { throw RestingError.responseTooLarge(limit: limit) }
            var body = Data()
            while body.count < Int(length) {
                guard let bytes = try await connection.read(maximumLength: Int(length) - body.count) else {
                    throw UpgradeExchange.malformed("the connection ended \(Int(length) - body.count) bytes early")
                }
                body.append(bytes)
            }
            return body
        }
        var body = Data()
        while let bytes = try await connection.read(maximumLength: 64 * 1024) {
            body.append(bytes)
            guard body.count <= limit else { throw RestingError.responseTooLarge(limit: limit) }
        }
        return body
    }

    private static func readChunked(from connection: CurlUpgradedConnection, limit: Int64) async throws -> Data {
        var wire = [UInt8]()
        var body = Data()
        var position = 0
        func line() async throws -> ArraySlice<UInt8> {
            while true {
                if let end = wire[position...].firstIndex(of: 10) {
                    defer { position = end + 1 }
                    let line = wire[position..<end]
                    return line.last == 13 ? line.dropLast() : line
                }
                guard wire.count - position <= 8 * 1024 else {
                    throw UpgradeExchange.malformed("a chunk line too long")
                }
                guard let bytes = try await connection.read(maximumLength: 64 * 1024) else {
                    throw UpgradeExchange.malformed("the connection ended inside a chunked body")
                }
                wire.append(contentsOf: bytes)
            }
        }
        while true {
            let sizeField = String(decoding: try await line(), as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(String(sizeField).trimmingWhitespace, radix: 16), size >= 0 else {
                throw UpgradeExchange.malformed("an invalid chunk size")
            }
            if size == 0 {
                while try await !line().isEmpty {}  // the trailer section
                return body
            }
            guard Int64(body.count) + Int64(size) <= limit else { throw RestingError.responseTooLarge(limit: limit) }
            while wire.count - position < size + 2 {
                guard let bytes = try await connection.read(maximumLength: 64 * 1024) else {
                    throw UpgradeExchange.malformed("the connection ended inside a chunk")
                }
                wire.append(contentsOf: bytes)
            }
            body.append(contentsOf: wire[position..<(position + size)])
            position += size
            guard try await line().isEmpty else { throw UpgradeExchange.malformed("a chunk without its CRLF") }
            wire.removeFirst(position)
            position = 0
        }
    }
}
