import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension CurlClient {
    /// Opens `count` new connections to `url`'s origin before the calls that will need them: DNS, TCP and TLS paid at
    /// start-up or after a switch of servers, not by the first user's request.
    ///
    /// ```swift
    /// let transport = try CurlClient()
    /// try await transport.warmConnections(4, to: URL(string: "https://api.example.com/health")!)
    /// // the next four calls at once find a connection each
    /// ```
    ///
    /// Each connection carries a `HEAD` for `url` — safe (RFC 9110 §9.2.1), whatever its status: a 404 or a 405 keeps
    /// the connection as well as a 200 — with `headers` where the origin turns away requests without them (an API
    /// key at a gateway). libcurl opens no connection without a request, and the requests are the client's own: they
    /// pass no interceptor, and their responses are dropped.
    ///
    /// The first goes alone: if its origin answers over HTTP/2, that one connection is the origin's, which every call
    /// multiplexes on, and nothing more is opened. Over HTTP/1.1 the others follow at once, each on a connection of
    /// its own, spread over the driver threads as calls are (each thread keeps its own connections). Every warm-up
    /// opens new ones, so warm once, not before each burst: the pool keeps
    /// ``/RestingConnections/ConnectionOptions/maximumIdleConnections`` at most, closing the oldest idle first.
    @discardableResult
    public func warmConnections(_ count: Int, to url: URL, headers: HTTPHeaderFields = [:]) async throws
        -> ConnectionWarmUp
    {
        guard !isShuttingDown else { throw RestingError.shutDown }
        let request = HTTPRequest(method: .head, url: url, headers: headers)
        try request.validate()
        var warmUp = ConnectionWarmUp()
        guard count > 0 else { return warmUp }
        let (placed, affinityKey, home) = drivers.driver(for: request.url)
        // Placed as a call would be, the first tells the pool which protocol its origin speaks.
        let first = await warm(request, on: placed, affinityKey: affinityKey, home: home)
        warmUp.record(first)
        if case .success(let response) = first, response.metrics?.protocolVersion == "2" { return warmUp }
        let threads = drivers.drivers
        let start = threads.firstIndex { $0 === placed } ?? 0
        await withTaskGroup(of: Result<HTTPDataResponse, RestingError>.self) { group in
            for index in 1..<count {
                let driver = threads[(start + index) % threads.count]
                group.addTask { await self.warm(request, on: driver) }
            }
            for await result in group { warmUp.record(result) }
        }
        return warmUp
    }

    /// One warm-up request on `driver`, on a connection of its own; its failure kept as a value.
    private func warm(
        _ request: HTTPRequest, on driver: CurlDriver, affinityKey: String? = nil, home: CurlDriver? = nil
    ) async -> Result<HTTPDataResponse, RestingError> {
        let transfer = CurlTransfer(
            request: request, progress: { _ in }, maximumResponseSize: configuration.maximumResponseSize,
            census: census, driver: driver, affinityKey: affinityKey, home: home, connection: .fresh)
        do {
            return .success(try await perform(transfer))
        } catch {
            return .failure(error as? RestingError ?? .cancelled)
        }
    }
}

extension ConnectionWarmUp {
    fileprivate mutating func record(_ result: Result<HTTPDataResponse, RestingError>) {
        switch result {
        case .success(let response):
            answered += 1
            if response.metrics?.reusedConnection == false { opened += 1 }
        case .failure(let error):
            failures.append(error)
        }
    }
}
