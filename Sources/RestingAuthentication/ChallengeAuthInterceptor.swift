import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Answers a server's `401` challenges (`WWW-Authenticate`) with the schemes the app gives it — Digest
/// (``DigestAuthentication``) or the app's own ``ChallengeResponder`` — the same way on every transport.
///
/// On a `401`, the first challenge (in the server's order of preference) that a responder answers is answered, and
/// the request is sent once more with its `Authorization`; a second `401` is the caller's answer (a wrong password
/// is an ``/RestingCore/HTTPError`` with status 401, or the API's error type), unless its responder asks for one more try — Digest
/// does for a `stale` nonce, once. The request body is sent again by the usual rule: a single-pass body fails with
/// ``/RestingCore/RestingError/requestBodyNotReplayable``. Only challenges from the origin the call was addressed to are answered
/// (a redirect elsewhere gets no credential: the credential boundary would remove it anyway), and the `Authorization`
/// field is marked sensitive, so logs hide it.
///
/// Install it among the **network** interceptors: each hop of a redirect is then answered for its own URL (Digest
/// signs the request's target).
///
/// ```swift
/// let camera = RestingClient(
///     baseUrl: "http://192.0.2.10",
///     networkInterceptors: [ChallengeAuthInterceptor.digest(username: "admin", password: password)])
/// ```
public struct ChallengeAuthInterceptor: PlacedInterceptor {
    /// The responders, in the app's order; a challenge goes to the first whose scheme it is.
    public let responders: [any ChallengeResponder]

    /// An interceptor answering challenges with `responders`.
    public init(_ responders: [any ChallengeResponder]) { self.responders = responders }

    /// Adds what a responder sends before any challenge, and answers a `401`'s challenges.
    nonisolated(nonsending) public func intercept(request: HTTPRequest, execution: InterceptorExecution) async throws
        -> HTTPDataResponse
    {
        guard request.attributes.requiresAuthentication, let origin = Origin(request.url),
            request.credentialOrigin == origin
        else { return try await execution(request) }
        var sent = request
        for responder in responders {
            if let credential = try await responder.authorization(for: request) {
                sent.headers.replaceOrAdd(name: "Authorization", value: credential, sensitive: true)
                break
            }
        }
        var response = try await execution(sent)
        var answered = 0
        while response.status == 401, answered < Self.maximumAnswers,
            let credential = try await answer(response, to: sent, previousAnswers: answered)
        {
            answered += 1
            // The refused response is not the caller's: a streamed one would keep its transfer open.
            response.body.cancel()
            sent.headers.replaceOrAdd(name: "Authorization", value: credential, sensitive: true)
            response = try await execution(sent)
        }
        return response
    }

    /// One answer, one renewal of it (a stale nonce) and one spare: however a server or a responder behaves, a call
    /// ends.
    static let maximumAnswers = 3

    private func answer(_ response: HTTPDataResponse, to request: HTTPRequest, previousAnswers: Int) async throws
        -> String?
    {
        for challenge in AuthenticationChallenge.challenges(in: response.headers) {
            for responder in responders where challenge.hasScheme(responder.scheme) {
                if let credential = try await responder.authorization(
                    answering: challenge, for: request, previousAnswers: previousAnswers)
                {
                    return credential
                }
            }
        }
        return nil
    }
}

/// Answers one authentication scheme's challenges for ``ChallengeAuthInterceptor``: Digest
/// (``DigestAuthentication``) ships; write one for an API's own scheme.
///
/// ```swift
/// /// A vendor's HMAC scheme: the challenge carries a nonce to sign.
/// struct VendorSignature: ChallengeResponder {
///     let key: SymmetricKey
///     var scheme: String { "Vendor-HMAC" }
///     func authorization(answering challenge: AuthenticationChallenge, for request: HTTPRequest,
///                        previousAnswers: Int) async throws -> String? {
///         guard previousAnswers == 0, let nonce = challenge["nonce"] else { return nil }
///         return "Vendor-HMAC nonce=\"\(nonce)\", signature=\"\(sign(nonce, request))\""
///     }
/// }
/// ```
public protocol ChallengeResponder: Sendable {
    /// The scheme answered (compared case-insensitively with the challenge's).
    var scheme: String { get }

    /// What to send with `request` before any challenge (a Digest nonce already granted for its origin), or `nil`.
    func authorization(for request: HTTPRequest) async throws -> String?

    /// The `Authorization` value answering `challenge` for `request`, or `nil` when this responder will not answer
    /// it. `previousAnswers` counts the answers this call already sent that were refused: answering again after a
    /// refusal is for a challenge that says the refusal was not the credential's fault (Digest's `stale=true`).
    func authorization(answering challenge: AuthenticationChallenge, for request: HTTPRequest, previousAnswers: Int)
        async throws -> String?
}

extension ChallengeResponder {
    /// Nothing before a challenge.
    public func authorization(for request: HTTPRequest) async throws -> String? { nil }
}

extension ChallengeAuthInterceptor {
    /// HTTP Digest authentication (RFC 7616) with `username` and `password`, answering the server's challenges.
    ///
    /// ```swift
    /// RestingClient(baseUrl: camera, networkInterceptors: [ChallengeAuthInterceptor.digest(username: "admin", password: pw)])
    /// ```
    public static func digest(username: String, password: String) -> ChallengeAuthInterceptor {
        ChallengeAuthInterceptor([DigestAuthentication(username: username, password: password)])
    }
}

extension ChallengeAuthInterceptor {
    /// Rank 1 of the credentials and cache order, in `networkInterceptors`: see ``/RestingCore/InterceptorPlacement``.
    public var placement: InterceptorPlacement {
        InterceptorPlacement(order: "credentials and cache", rank: 1, list: .network, name: "ChallengeAuthInterceptor")
    }
}
