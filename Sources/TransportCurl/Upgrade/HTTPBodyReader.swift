import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a response body that is not an upgrade from an upgrade's connection: by `Content-Length`, by its chunks
/// (trailers dropped), or to the connection's end; within `limit` bytes.
enum HTTPBodyReader {
    static func read(head: HTTPHeadReader.Head, from connection: any UpgradedConnection, limit: Int64) async throws
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

    private static func readChunked(from connection: any UpgradedConnection, limit: Int64) async throws -> Data {
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
