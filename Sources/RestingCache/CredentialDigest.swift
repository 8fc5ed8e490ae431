import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the cache keeps of a request's credentials: a keyed digest (HMAC-SHA256), enough to tell one identity from
/// another and never the credential itself.
///
/// Keyed, because a plain digest of a weak password or a short API key can be checked against guesses by anyone who
/// reads a disk store's entries; the key is random, made once per process and never written anywhere. So a
/// ``DiskCacheStore`` that keeps credentialed responses (it does only when told to) finds them in the process that
/// stored them, and never again after a restart: each is then an entry no key leads to, evicted in its turn.
struct CredentialDigest: Sendable, Equatable {
    /// The digest as lowercase hex.
    let hex: String

    /// The digest of every field of `headers` that carries a credential (name and value, in order); `nil` for
    /// headers that carry none.
    init?(of headers: HTTPHeaderFields) {
        var message = Data()
        for field in headers where field.carriesCredential {
            message.append(contentsOf: "\(field.name.lowercased()): \(field.value)\n".utf8)
        }
        guard !message.isEmpty else { return nil }
        hex = SHA256.authenticationCodeHex(of: message, key: Self.key)
    }

    /// A value to keep in place of a credential header's value (a `Vary` on `Authorization` or `Cookie`).
    static func replacing(_ value: String) -> String {
        "hmac-sha256:" + SHA256.authenticationCodeHex(of: Data(value.utf8), key: key)
    }

    /// This process's key: 32 bytes from the system's random source.
    static let key: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()
}
