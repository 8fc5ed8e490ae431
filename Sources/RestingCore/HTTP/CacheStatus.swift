/// How an HTTP cache answered a request, so that logging and event monitors can report hits, misses and
/// revalidations: ``HTTPDataResponse/cacheStatus`` and ``RestingResponse/cacheStatus``. `LoggingInterceptor` adds it
/// to its line (`← 200 GET https://… (0 ms, cache hit)`); `RestingEvent.responseReceived` (RestingLogging) carries it.
public enum CacheStatus: String, Sendable, Hashable {
    /// Served from the cache without asking the server.
    case hit
    /// The server confirmed the stored response (`304 Not Modified`); its body came from the cache.
    case revalidated
    /// The server answered in full (and the cache may have stored the answer).
    case miss
    /// The server could not be reached or failed, and a stale stored response was served (`stale-if-error`).
    case staleOnError
    /// Nothing suitable was stored and the request allowed no network (`only-if-cached`): a `504` made by the cache.
    case unavailable
}
