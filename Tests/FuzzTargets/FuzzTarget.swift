#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One parser or encoder under fuzzing: it takes any bytes and checks a property of what it made of them,
/// reporting a broken property through `violation` (which the fuzzer turns into a crash and the regression
/// test into a failure). Never crashing on any input is the property every target checks first.
public struct FuzzTarget: Sendable {
    public let name: String
    public let run: @Sendable (_ input: Data, _ violation: (String) -> Void) -> Void

    /// Every target, by name: what `make fuzz` runs and what the regression test replays.
    public static let all: [FuzzTarget] = [
        pathTemplate, formRoundTrip, headerValidation, contentRange, retryAfter, redirectLocation, linkHeader,
        authenticationChallenge,
        redaction, offlineEntry, multipart, serverSentEvents, lines, setCookie, cacheControl, cacheEntry, publicSuffix,
        webSocketFrames, webSocketDeflate, upgradeAnswer, responseHead, rateLimitFields, envelope, alternativeServices,
        originKey, alternativeServicesFile,
    ]

    public static func named(_ name: String) -> FuzzTarget? { all.first { $0.name == name } }
}

extension Data {
    /// The input as text: invalid UTF-8 becomes U+FFFD, as a server's bytes would after decoding.
    var text: String { String(decoding: self, as: UTF8.self) }

    /// The input cut in two at its first NUL byte (the second part empty when there is none).
    var halves: (Data, Data) {
        guard let nul = firstIndex(of: 0) else { return (self, Data()) }
        return (Data(self[startIndex..<nul]), Data(self[index(after: nul)...]))
    }
}

extension String {
    /// Whether `other`'s UTF-8 bytes appear in this string's: properties compare bytes, since comparing
    /// `Character`s lets a combining mark hide a match (`"` followed by U+0596 is one grapheme).
    func containsBytes(of other: String) -> Bool {
        other.isEmpty || utf8.firstRange(of: Array(other.utf8)) != nil
    }
}
