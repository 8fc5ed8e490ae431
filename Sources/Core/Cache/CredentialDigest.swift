#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the cache keeps of a request's credentials: a SHA-256 digest, enough to tell one identity from another
/// and never the credential itself.
struct CredentialDigest: Sendable, Equatable {
    /// The digest as lowercase hex.
    let hex: String

    /// The digest of every field of `headers` that carries a credential (name and value, in order); `nil` for
    /// headers that carry none.
    init?(of headers: HTTPHeaderFields) {
        var hasher = SHA256()
        var carriesAny = false
        for field in headers where field.carriesCredential {
            carriesAny = true
            hasher.update(Data("\(field.name.lowercased()): \(field.value)\n".utf8))
        }
        guard carriesAny else { return nil }
        hex = hasher.finalizeHex()
    }

    /// A value to keep in place of a credential header's value (a `Vary` on `Authorization` or `Cookie`).
    static func replacing(_ value: String) -> String { "sha256:" + SHA256.hex(Data(value.utf8)) }
}
