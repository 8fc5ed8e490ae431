import Foundation
import RestingTestSupport
import Testing

@testable import RestingAuthentication
@testable import RestingCore
@testable import RestingOffline

/// Restored request attributes under attack: what an offline entry on disk can make a replay mean, and what
/// `RequestAttributes.merging` does with values restored from disk.
@Suite("Restored request attributes under attack")
struct RestoredAttributesHostileTests {
    private func withStore(_ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("outbox-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }

    /// Rewrites the only entry in `directory`, setting its stored attribute `name` to the bytes `value`.
    private func rewriteAttribute(in directory: URL, name: String, to value: Data) throws {
        let file = try #require(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).first { $0.hasSuffix(".json") })
        let url = directory.appendingPathComponent(file)
        var entry = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var attributes = entry["attributes"] as? [String: Any] ?? [:]
        attributes[name] = value.base64EncodedString()
        entry["attributes"] = attributes
        try JSONSerialization.data(withJSONObject: entry).write(to: url)
    }

    /// OfflineQueue's documentation ("Faithful"): "An entry whose attributes cannot be restored [...] is quarantined,
    /// never sent." With lazy decoding, an undecodable `resting.requiresAuthentication` silently reads as its default
    /// (`true`), so a request its app marked as needing no credential — here an upload to a third party — is replayed
    /// with the app's bearer token.
    @Test("an entry whose requiresAuthentication cannot be restored is quarantined, never sent with the app's token")
    func undecodableRequiresAuthenticationIsQuarantined() async throws {
        try await withStore { directory in
            let upload = Endpoint<Data, Data>(
                .put, "https://uploads.third-party.example/photo", encoding: .raw(contentType: "image/jpeg")
            ).setting(\.requiresAuthentication, false)
            let queue = try OfflineQueue(directory: directory)
            try queue.enqueue(RestingRequest(endpoint: upload, body: Data("photo".utf8)))
            #expect(try queue.entries().first?.attributes?[RequiresAuthenticationKey.name] != nil)
            // Valid JSON that means `false`, but not in the array the current release wraps values in (an entry from
            // another release, a hand-repaired file, a flipped bit in the base64): it no longer decodes.
            try rewriteAttribute(in: directory, name: RequiresAuthenticationKey.name, to: Data("false".utf8))

            let seen = Collector<HTTPRequest>()
            let client = RestingClient(
                baseUrl: "https://api.example.com",
                httpClient: ClosureHTTPClient { request in
                    seen.append(request)
                    return HTTPDataResponse(status: 200)
                },
                interceptors: [AuthInterceptor.bearer(token: "app-secret")])
            let report = try await queue.replay(with: client)

            #expect(
                seen.all.allSatisfy { $0.headers["Authorization"] == nil },
                "the third party received the app's token: \(seen.all.map { $0.headers["Authorization"] ?? "-" })")
            #expect(
                report.quarantined == 1 && report.sent == 0, "sent \(report.sent), quarantined \(report.quarantined)")
        }
    }

    /// `merging` is public and documented as "these attributes with every value `overrides` sets replacing this
    /// one's". The first merge of a restored request over an endpoint's value is right, but leaves the endpoint's key
    /// registered as persistent with no value behind it: merging that result over any other attributes (a second
    /// layer of defaults, an interceptor applying its own) drops the request's restored value, and the key reads as
    /// its default again — `requiresAuthentication` back to `true`.
    @Test("a request's restored value still wins after its merged attributes are merged again")
    func restoredValueSurvivesASecondMerge() throws {
        let endpoint = RequestAttributes().setting(\.requiresAuthentication, true)
        let replayed = RequestAttributes(restoring: [RequiresAuthenticationKey.name: Data("[false]".utf8)])
        let merged = endpoint.merging(replayed)
        #expect(merged.requiresAuthentication == false, "the request's value wins over the endpoint's")

        let appDefaults = RequestAttributes().setting(\.operationID, "defaults")
        let layered = appDefaults.merging(merged)
        #expect(layered.operationID == "defaults")
        #expect(
            layered.requiresAuthentication == false,
            "merging over defaults that never mention requiresAuthentication turned the request's false into true")
    }

    /// The same stale registration breaks keeping the merged attributes: `persistentValues()` (what `OfflineQueue`
    /// stores) throws `encodingFailed` for a key whose value the request itself restored.
    @Test("attributes merged from an endpoint's value and a restored request's can be kept again")
    func mergedRestoredAttributesCanBeKeptAgain() throws {
        let endpoint = RequestAttributes().setting(\.requiresAuthentication, true)
        let replayed = RequestAttributes(restoring: [RequiresAuthenticationKey.name: Data("[false]".utf8)])
        let merged = endpoint.merging(replayed)
        var kept: [String: Data]?
        do {
            kept = try merged.persistentValues()
        } catch {
            Issue.record("the merged attributes cannot be kept: \(error)")
        }
        #expect(kept?[RequiresAuthenticationKey.name] == Data("[false]".utf8))
    }
}

extension RequestAttributes {
    fileprivate func setting<Value>(_ keyPath: WritableKeyPath<RequestAttributes, Value>, _ value: Value)
        -> RequestAttributes
    {
        var copy = self
        copy[keyPath: keyPath] = value
        return copy
    }
}
