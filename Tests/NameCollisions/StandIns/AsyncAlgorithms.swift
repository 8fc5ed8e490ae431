// Public type names of swift-async-algorithms 1.0 (module AsyncAlgorithms).
public struct AsyncSyncSequence {}
public final class AsyncChannel {}
public final class AsyncThrowingChannel {}
public struct AsyncTimerSequence {}
public struct AsyncBufferSequence {}
public struct AsyncChunksOfCountSequence {}
public struct AsyncMerge2Sequence {}
public struct AsyncZip2Sequence {}
public struct AsyncDebounceSequence {}
public struct AsyncThrottleSequence {}
