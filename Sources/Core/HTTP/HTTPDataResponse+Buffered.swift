extension HTTPDataResponse {
    /// Buffered bodies stay as they are; a streamed one is read whole (up to `limit`, 64 MiB by default).
    package func buffered(upTo limit: Int = Int(TransportDefaults.maximumResponseSize)) async throws -> HTTPDataResponse
    {
        guard let bodyStream else { return self }
        var response = self
        response.body = try await bodyStream.collect(upTo: limit)
        response.bodyStream = nil
        return response
    }
}
