import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The file format of a ``DiskCacheStore`` entry:
///
///     "RKC1" · meta length (UInt32, big-endian) · body length (UInt64) · meta (JSON) · body · FNV-1a of meta+body (UInt64)
///
/// Decoding checks the magic, that the lengths add up to the file's exact size, and the checksum: anything
/// else is `nil`, and the store drops the file.
///
/// The meta holds the SHA-256 digest of the entry's key, never the key itself: a URL (a signed one, a token in
/// its query) is not written in clear. The URL is given back from the key the entry is asked for.
package enum CacheEntryCoding {
    static let magic: [UInt8] = Array("RKC1".utf8)
    private static let headerLength = 4 + 4 + 8

    private struct Meta: Codable {
        var keyDigest: String
        var status: Int
        var headers: [[String]]
        var requestTime: Double
        var responseTime: Double
        var vary: [String: String]
    }

    package static func encode(_ response: CachedResponse, key: String) -> Data? {
        let meta = Meta(
            keyDigest: digest(of: key), status: response.status,
            headers: response.headers.map { [$0.name, $0.value] },
            requestTime: response.requestTime.timeIntervalSince1970,
            responseTime: response.responseTime.timeIntervalSince1970,
            vary: response.varyingRequestHeaders)
        guard let metaData = try? JSONEncoder().encode(meta), metaData.count <= UInt32.max else { return nil }
        var data = Data(magic)
        append(UInt64(metaData.count), bytes: 4, to: &data)
        append(UInt64(response.body.count), bytes: 8, to: &data)
        data.append(metaData)
        data.append(response.body)
        append(fnv1a(data[headerLength...]), bytes: 8, to: &data)
        return data
    }

    /// The entry in `data` if it is whole and was stored for `key`; its URL is the key's (``url(ofKey:)``).
    package static func decode(_ data: Data, key: String) -> CachedResponse? {
        let bytes = [UInt8](data)
        guard bytes.count >= headerLength + 8, Array(bytes[0..<4]) == magic else { return nil }
        let metaLength = Int(read(bytes, at: 4, count: 4))
        let bodyLength = read(bytes, at: 8, count: 8)
        guard bodyLength <= UInt64(bytes.count),
            headerLength + metaLength + Int(bodyLength) + 8 == bytes.count
        else { return nil }
        let bodyStart = headerLength + metaLength
        let bodyEnd = bodyStart + Int(bodyLength)
        guard read(bytes, at: bodyEnd, count: 8) == fnv1a(bytes[headerLength..<bodyEnd]),
            let meta = try? JSONDecoder().decode(Meta.self, from: Data(bytes[headerLength..<bodyStart])),
            meta.headers.allSatisfy({ $0.count == 2 }), meta.keyDigest == digest(of: key), let url = url(ofKey: key)
        else { return nil }
        let response = CachedResponse(
            url: url, status: meta.status, headers: HTTPHeaderFields(meta.headers.map { ($0[0], $0[1]) }),
            body: Data(bytes[bodyStart..<bodyEnd]), requestTime: Date(timeIntervalSince1970: meta.requestTime),
            responseTime: Date(timeIntervalSince1970: meta.responseTime), varyingRequestHeaders: meta.vary)
        return response
    }

    /// The SHA-256 of `key`, as lowercase hex: an entry's name and what its meta holds instead of the key.
    package static func digest(of key: String) -> String { SHA256.hex(Data(key.utf8)) }

    /// The URL a key was made from (`HTTPCacheInterceptor.key(for:)`: the URL, then optionally a space
    /// and the credentials' digest).
    static func url(ofKey key: String) -> URL? {
        URL(string: String(key.prefix { $0 != " " }))
    }

    /// 64-bit FNV-1a: a checksum against damage (not against an attacker, who could write the file whole).
    static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }

    private static func append(_ value: UInt64, bytes: Int, to data: inout Data) {
        for shift in stride(from: (bytes - 1) * 8, through: 0, by: -8) {
            data.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }

    private static func read(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
        bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
