#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension RestingRequest {
    /// This request sent only if the resource is no longer what `response` held (RFC 9110 §13): `If-None-Match` with
    /// its `ETag`, `If-Modified-Since` with its `Last-Modified`. A server with nothing new answers `304`: accept it on
    /// an endpoint whose response type is optional (``Endpoint/accepting(_:)``) and it reads as `nil`.
    ///
    /// ```swift
    /// let fresh = try await client.send(RestingRequest(endpoint: pollRecords).ifChanged(since: last)).body
    /// ```
    public func ifChanged<Body>(since response: RestingResponse<Body>) -> Self {
        ifChanged(etag: response.etag, lastModified: response.lastModified)
    }

    /// This request conditional on the validators `etag` and `lastModified` (either may be missing).
    package func ifChanged(etag: String?, lastModified: String?) -> Self {
        var request = self
        if let etag { request.headers.replaceOrAdd(name: "If-None-Match", value: etag) }
        if let lastModified { request.headers.replaceOrAdd(name: "If-Modified-Since", value: lastModified) }
        return request
    }

    /// This request sent only if the resource still has the entity tag `etag` (`If-Match`): a write that someone
    /// else's write since is refused with `412 Precondition Failed` instead of overwriting it. `nil` leaves the
    /// request without an `If-Match` of its own (removing one it had), so an optional validator needs no `if let`; one
    /// that the endpoint's headers or a header provider add is still sent.
    ///
    /// ```swift
    /// let saved = try await client.send(RestingRequest(endpoint: updateRecord, body: edited).ifMatch(previous.etag))
    /// ```
    public func ifMatch(_ etag: String?) -> Self { withValidator("If-Match", etag) }

    /// This request sent only if the resource's entity tag is not `etag` (`If-None-Match`; `"*"`: only if there is
    /// no resource yet, a create that must not overwrite). `nil` leaves the request without one of its own, as
    /// ``ifMatch(_:)`` does.
    public func ifNoneMatch(_ etag: String?) -> Self { withValidator("If-None-Match", etag) }

    private func withValidator(_ name: String, _ etag: String?) -> Self {
        var request = self
        if let etag {
            request.headers.replaceOrAdd(name: name, value: etag)
        } else {
            request.headers.remove(name: name)
        }
        return request
    }
}
