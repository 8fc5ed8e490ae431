import Foundation
import RestingCore
import RestingTestSupport
import Testing

extension TransportConformance {
    /// 204, 304, 404 and 500, with and without a body, are responses, never errors.
    public func statuses() async throws {
        for status in [204, 304, 404, 500] {
            for withBody in [false, true] {
                let response = try await send(
                    HTTPRequest(method: .get, url: url("/status/\(status)?body=\(withBody ? 1 : 0)")))
                #expect(response.status == status, "\(name): \(status)")
                let expected = withBody && status != 204 && status != 304 ? "status \(status)" : ""
                #expect(String(decoding: response.body.bytes, as: UTF8.self) == expected, "\(name): \(status) body")
            }
        }
    }

    /// Repeated response headers are all received.
    public func responseHeaders() async throws {
        let response = try await send(HTTPRequest(method: .get, url: url("/headers")))
        #expect(response.headers["x-mixed-case"] == "Value", "\(name)")
        if capabilities.preservesRepeatedResponseHeaders {
            #expect(response.headers.values(for: "X-Multi") == ["a", "b"], "\(name)")
            #expect(response.headers.values(for: "Set-Cookie") == ["a=1", "b=2"], "\(name)")
        } else {
            // Merged into one field, in an order the transport does not keep.
            let multi = response.headers.values(for: "X-Multi").joined(separator: ",").replacingOccurrences(
                of: " ", with: "")
            #expect(multi.split(separator: ",").sorted() == ["a", "b"], "\(name): \(multi)")
        }
    }

    /// A body larger than the transport's limit fails with `.responseTooLarge`; one within it arrives whole.
    public func responseSizeLimit() async throws {
        let limited = try makeTransport(Settings(maximumResponseSize: 10_000))
        let within = try await send(HTTPRequest(method: .get, url: url("/bytes/10000")), on: limited)
        #expect(within.status == 200 && within.body.bytes.count == 10_000, "\(name)")
        let error = await failure { try await send(HTTPRequest(method: .get, url: url("/bytes/10001")), on: limited) }
        guard case .responseTooLarge(limit: 10_000) = error else {
            Issue.record("\(name): expected responseTooLarge(limit: 10000), got \(String(describing: error))")
            return
        }
    }

    /// Progress never goes backwards, and before the call returns it reports every byte sent and received.
    public func progress() async throws {
        let upload = Data(count: 256 * 1024)
        let events = Collector<TransferProgress>()
        let response = try await send(HTTPRequest(method: .put, url: url("/echo/body"), body: .bytes(upload))) {
            events.append($0)
        }
        let all = events.all
        #expect(response.status == 200 && !all.isEmpty, "\(name)")
        #expect(
            zip(all, all.dropFirst()).allSatisfy {
                $0.bytesSent <= $1.bytesSent && $0.bytesReceived <= $1.bytesReceived
            },
            "\(name): \(all)")
        #expect(
            all.last?.bytesSent == Int64(upload.count) && all.last?.totalBytesToSend == Int64(upload.count),
            "\(name): \(all)")
        #expect(all.last?.bytesReceived == Int64(response.body.bytes.count), "\(name): \(all)")
    }

    /// gzip and deflate bodies are decoded transparently.
    public func decompression() async throws {
        guard capabilities.decodesContentCodings else {
            for encoding in ["gzip", "deflate"] {
                guard
                    case .unsupported = await failure({
                        try await send(HTTPRequest(method: .get, url: url("/\(encoding)")))
                    })
                else {
                    Issue.record("\(name): a \(encoding) body it cannot decode must fail as .unsupported")
                    continue
                }
            }
            return
        }
        for encoding in ["gzip", "deflate"] {
            let response = try await send(HTTPRequest(method: .get, url: url("/\(encoding)")))
            #expect(
                String(decoding: response.body.bytes, as: UTF8.self) == #"{"compressed":"\#(encoding)"}"#,
                "\(name): \(encoding)")
        }
    }

    /// A 401 with a Basic, Digest or Bearer challenge, and a 407 with a proxy's, are responses like any other:
    /// they reach the caller at once (so an auth interceptor can refresh), never a hang or a timeout.
    public func authenticationChallenges() async throws {
        for (scheme, status) in [
            ("basic", 401), ("digest", 401), ("bearer", 401), ("bearer-bare", 401), ("proxy", 407),
        ] {
            for headers: HTTPHeaderFields in [[:], ["Authorization": "Basic d3Jvbmc6d3Jvbmc="]] {
                let request = HTTPRequest(
                    method: .get, url: try url("/challenge/\(scheme)"), headers: headers, timeout: .seconds(10))
                let response = try await send(request)
                #expect(
                    response.status == status && response.body.bytes == Data("credentials required".utf8),
                    "\(name): \(scheme) \(headers)")
            }
        }
    }

    /// Trailers after a chunked body never join the response's headers, where a `Location` or `Retry-After`
    /// could steer what the checks of the head already decided.
    public func trailersAreNotHeaders() async throws {
        guard capabilities.survivesTrailers else { return }
        let response = try await send(HTTPRequest(method: .get, url: url("/trailers")))
        #expect(response.status == 200 && response.body.bytes == Data("hello".utf8), "\(name)")
        #expect(
            response.headers["Location"] == nil && response.headers["Retry-After"] == nil,
            "\(name): \(response.headers)")
    }
}
