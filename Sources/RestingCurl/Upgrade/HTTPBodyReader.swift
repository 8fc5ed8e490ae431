import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a response body that is not an upgrade from an upgrade's connection: by `Content-Length`, by its chunks
/// (``ChunkedBodyDecoder``: trailers dropped, but counted), or to the connection's end; within `limit` bytes.
enum HTTPBodyReader {
    static func read(head: HTTPHeadReader.Head, from connection: any UpgradedConnection, limit: Int64) async throws
        -> Data
    {
        // No body, whatever the fields say (RFC 9112 §6.3).
        if head.status == 204 || head.status == 304 { return Data() }
        if head.headers["Transfer-Encoding"]?.lowercased().contains("chunked") == true {
            return try await readChunked(from: connection, limit: limit)
        }
        let announced = head.headers["Content-Length"].map { value in
            // Digits only: `Int64` would take a sign too.
            value.trimmingWhitespace.utf8.allSatisfy { (48...57).contains($0) } ? Int64(value.trimmingWhitespace) : nil
        }
        if let announced {
            guard let length = announced else {
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
        var decoder = ChunkedBodyDecoder(limit: limit)
        while !decoder.isComplete {
            guard let bytes = try await connection.read(maximumLength: 64 * 1024) else {
                throw UpgradeExchange.malformed("the connection ended inside a chunked body")
            }
            try decoder.take(bytes)
        }
        return decoder.body
    }
}
