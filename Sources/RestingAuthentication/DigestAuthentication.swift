import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// HTTP Digest authentication (RFC 7616, and RFC 2069's form without `qop` that old devices still send): the
/// ``ChallengeResponder`` that ``ChallengeAuthInterceptor/digest(username:password:)`` installs.
///
/// - **Algorithms**: `MD5`, `SHA-256`, `SHA-512-256` and their `-sess` forms, and the plain `SHA-512` some servers
///   offer; the first challenge (in the server's order) of one of them is answered, any other is not.
/// - **Protection**: `qop=auth` when offered, else `auth-int` (the body, of known length up to 16 MiB, is hashed; any
///   other is not answered, and one that can be read only once fails with ``/RestingCore/RestingError/requestBodyNotReplayable``),
///   else none. `userhash=true` sends the hashed user name; a user name outside ASCII goes as `username*`.
/// - **Nonces**: a granted nonce is reused for the origin's next requests with the next nonce count, saving their
///   round trip; a `stale=true` challenge is answered once more with its new nonce, any other second `401` is not.
///
/// Strings are hashed as UTF-8. Not for a channel an attacker reads: Digest protects the password from being sent,
/// not the exchange — use it over HTTPS where the server allows.
public final class DigestAuthentication: ChallengeResponder {
    /// `Digest`.
    public var scheme: String { "Digest" }
    private let username: String
    private let password: String
    private let clientNonce: @Sendable () -> String
    /// The last nonce each origin granted, and how many requests used it: the nonce count goes on across calls
    /// (RFC 7616 §3.4: a server may refuse a count it has seen).
    private let grants = Locked(BoundedMap<Origin, (challenge: DigestChallenge, count: Int)>())

    /// Digest with `username` and `password`.
    public convenience init(username: String, password: String) {
        self.init(username: username, password: password) {
            var generator = SystemRandomNumberGenerator()
            return Hex.lowercase((0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        }
    }

    /// Digest with a chosen client nonce: for tests that check a response against a known one.
    package init(username: String, password: String, clientNonce: @escaping @Sendable () -> String) {
        self.username = username
        self.password = password
        self.clientNonce = clientNonce
    }

    /// The next use of the nonce the request's origin granted last, if any.
    public func authorization(for request: HTTPRequest) async throws -> String? {
        guard let origin = Origin(request.url) else { return nil }
        let grant = grants.withLock { grants -> (DigestChallenge, Int)? in
            grants.update(origin, now: Date()) { grant in
                grant.count += 1
                return (grant.challenge, grant.count)
            }
        }
        guard let (challenge, count) = grant else { return nil }
        do {
            return try await credential(answering: challenge, count: count, for: request)
        } catch RestingError.requestBodyNotReplayable {
            return nil  // sent unsigned: hashing the body first would spend it
        }
    }

    /// The answer to a Digest challenge it can meet: the first of a call, or a renewal of a stale nonce.
    public func authorization(
        answering challenge: AuthenticationChallenge, for request: HTTPRequest, previousAnswers: Int
    ) async throws -> String? {
        guard let digest = DigestChallenge(challenge), let origin = Origin(request.url),
            previousAnswers == 0 || (digest.isStale && previousAnswers == 1)
        else { return nil }
        // Two calls challenged with one nonce count on from each other: the second is not a replay of the first.
        let count = grants.withLock { grants in
            grants.withValue(for: origin, now: Date(), default: (digest, 0)) { grant in
                if grant.challenge.nonce != digest.nonce || grant.challenge.realm != digest.realm {
                    grant = (digest, 0)
                }
                grant.count += 1
                return grant.count
            }
        }
        return try await credential(answering: digest, count: count, for: request)
    }

    /// The `Authorization` value (RFC 7616 §3.4).
    private func credential(answering challenge: DigestChallenge, count: Int, for request: HTTPRequest)
        async throws -> String?
    {
        let hash: (String) -> String = challenge.algorithm.hex
        let target = Self.requestTarget(of: request.url)
        let clientNonce = clientNonce()
        let nonceCount = String(String(count, radix: 16).suffix(8)).leftPadded(to: 8)
        var secret = hash("\(username):\(challenge.realm):\(password)")
        if challenge.algorithm.isSession { secret = hash("\(secret):\(challenge.nonce):\(clientNonce)") }
        var method = "\(request.method.rawValue):\(target)"
        if challenge.protection == .authenticationWithIntegrity {
            guard let bodyHash = try await Self.bodyHash(of: request.body, with: challenge.algorithm) else {
                return nil
            }
            method += ":" + bodyHash
        }
        let response =
            challenge.protection.map {
                hash("\(secret):\(challenge.nonce):\(nonceCount):\(clientNonce):\($0.rawValue):\(hash(method))")
            }
            ?? hash("\(secret):\(challenge.nonce):\(hash(method))")
        var fields: [String] = []
        if challenge.hashesUsername {
            fields.append("username=\(Self.quoted(hash("\(username):\(challenge.realm)")))")
        } else if username.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
            fields.append("username=\(Self.quoted(username))")
        } else {
            fields.append("username*=UTF-8''\(PercentEncoding.encode(username))")
        }
        fields += [
            "realm=\(Self.quoted(challenge.realm))", "uri=\(Self.quoted(target))",
            "algorithm=\(challenge.algorithm.name)", "nonce=\(Self.quoted(challenge.nonce))",
        ]
        if let protection = challenge.protection {
            fields += ["nc=\(nonceCount)", "cnonce=\(Self.quoted(clientNonce))", "qop=\(protection.rawValue)"]
        }
        fields.append("response=\(Self.quoted(response))")
        if let opaque = challenge.opaque { fields.append("opaque=\(Self.quoted(opaque))") }
        if challenge.hashesUsername { fields.append("userhash=true") }
        return "Digest " + fields.joined(separator: ", ")
    }

    /// The most request body `auth-int` hashes: it is held in memory for it.
    static let maximumHashedBody = 16 << 20

    /// The body's hash for `auth-int`; `nil` for a body of unknown length or past ``maximumHashedBody``. A body that
    /// can be read only once fails with ``/RestingCore/RestingError/requestBodyNotReplayable``: hashing it would spend it.
    private static func bodyHash(of body: RequestBody, with algorithm: DigestAlgorithm) async throws -> String? {
        if body.isSinglePass { throw RestingError.requestBodyNotReplayable }
        guard let length = body.contentLength, length <= maximumHashedBody else { return nil }
        return algorithm.hex(try await body.collect(upTo: maximumHashedBody))
    }

    /// The request target as it goes on the wire: the path (or `/`) and the query, percent-encoded as given.
    static func requestTarget(of url: URL) -> String {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? ""
        let query = components?.percentEncodedQuery.map { "?" + $0 } ?? ""
        return (path.isEmpty ? "/" : path) + query
    }

    private static func quoted(_ value: String) -> String {
        var quoted = "\""
        for character in value {
            if character == "\\" || character == "\"" { quoted.append("\\") }
            quoted.append(character)
        }
        return quoted + "\""
    }
}

/// A Digest challenge this client can answer, read from an ``AuthenticationChallenge``.
struct DigestChallenge: Sendable {
    enum Protection: String, Sendable {
        case authentication = "auth"
        case authenticationWithIntegrity = "auth-int"
    }

    let realm: String
    let nonce: String
    let opaque: String?
    let algorithm: DigestAlgorithm
    /// `nil`: RFC 2069's digest, for a server that offers no `qop`.
    let protection: Protection?
    let isStale: Bool
    let hashesUsername: Bool

    /// `nil` when a field it needs is missing or it asks for an algorithm or protection this client lacks.
    init?(_ challenge: AuthenticationChallenge) {
        guard challenge.hasScheme("Digest"), let realm = challenge["realm"], let nonce = challenge["nonce"],
            let algorithm = DigestAlgorithm(name: challenge["algorithm"] ?? "MD5")
        else { return nil }
        if let offered = challenge["qop"] {
            let options = Set(
                offered.split(separator: ",").map { String($0).trimming { $0 == " " || $0 == "\t" }.lowercased() })
            guard
                let chosen = [Protection.authentication, .authenticationWithIntegrity].first(where: {
                    options.contains($0.rawValue)
                })
            else { return nil }
            protection = chosen
        } else {
            // A session algorithm mixes in the client's nonce, which only goes with a `qop`.
            guard !algorithm.isSession else { return nil }
            protection = nil
        }
        self.realm = realm
        self.nonce = nonce
        self.algorithm = algorithm
        opaque = challenge["opaque"]
        isStale = challenge["stale"]?.lowercased() == "true"
        hashesUsername = challenge["userhash"]?.lowercased() == "true"
    }
}

/// A Digest `algorithm`: its hash, and whether it is a `-sess` form.
struct DigestAlgorithm: Sendable {
    enum Hash: Sendable { case md5, sha256, sha512Truncated256, sha512 }

    /// As it goes back to the server: the spelling RFC 7616 registers.
    let name: String
    let hash: Hash
    let isSession: Bool

    init?(name: String) {
        let upper = name.uppercased()
        isSession = upper.hasSuffix("-SESS")
        let base = isSession ? String(upper.dropLast(5)) : upper
        switch base {
        case "MD5": hash = .md5
        case "SHA-256": hash = .sha256
        case "SHA-512-256": hash = .sha512Truncated256
        case "SHA-512": hash = .sha512
        default: return nil
        }
        self.name = base + (isSession ? "-sess" : "")
    }

    func hex(_ text: String) -> String { hex(Data(text.utf8)) }

    func hex(_ data: Data) -> String {
        switch hash {
        case .md5: MD5.hex(data)
        case .sha256: SHA256.hex(data)
        case .sha512Truncated256: SHA512.hex(data, variant: .sha512Truncated256)
        case .sha512: SHA512.hex(data)
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: Swift.max(0, width - count)) + self
    }
}
