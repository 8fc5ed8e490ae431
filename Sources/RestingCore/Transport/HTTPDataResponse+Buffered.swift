extension HTTPDataResponse {
    /// Buffered bodies stay as they are; a streamed one is read whole (up to `limit`, 64 MiB by default).
    package func buffered(upTo limit: Int = Int(TransportDefaults.maximumResponseSize)) async throws -> HTTPDataResponse
    {
        guard let stream = body.stream else { return self }
        var response = self
        response.body = ResponseBody(try await stream.collect(upTo: limit))
        return response
    }
}
