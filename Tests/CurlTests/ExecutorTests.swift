import Foundation
import RestingCache
import RestingCore
import RestingCurl
import RestingServerHarness
import Testing

/// A response body that notes the thread it is decoded on.
private struct ThreadRecordingBody: Decodable, Sendable {
    let padding: String
    let decodedOn: String?

    init(from decoder: any Decoder) throws {
        padding = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .padding)
        decodedOn = Thread.current.name
    }

    enum CodingKeys: String, CodingKey { case padding }
}

@Suite("RestingClient on the curl executor")
struct ExecutorTests {
    @Test("the pipeline runs on the transport's thread, and bodies over 64 KiB are decoded off it")
    func pipelineRunsOnTheExecutor() async throws {
        let server = try await LocalServer.sharedConformanceServer.value
        let client = RestingClient(baseUrl: "http://127.0.0.1:\(server.port)", httpClient: try CurlClient())
        let endpoint = Endpoint<Nothing, ThreadRecordingBody>(.get, "/json/{{size}}", encoding: .query)
        let small = try await client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["size": 100])).value
            .body
        #expect(small.decodedOn == "RestingKit.curl")
        let large = try await client.perform(RestingRequest(endpoint: endpoint, pathVariables: ["size": 100_000])).value
            .body
        #expect(large.padding.count == 100_000)
        #expect(large.decodedOn != "RestingKit.curl", "a large body must not hold up the transport's thread")
    }

    @Test(
        "a cache store that blocks on I/O is called off the transport's thread (lookup, store, invalidation); one in memory on it",
        arguments: [true, false])
    func cacheStoreCalls(performsBlockingIO: Bool) async throws {
        struct Resource: Decodable, Sendable { let key: String }
        let server = try await LocalServer.sharedImageServer.value
        let store = ThreadRecordingStore(performsBlockingIO: performsBlockingIO)
        let client = RestingClient(
            baseUrl: "http://127.0.0.1:\(server.port)", httpClient: try CurlClient(),
            networkInterceptors: [HTTPCacheInterceptor(store: store)])
        let key = UUID().uuidString
        let get = RestingRequest(
            endpoint: Endpoint<Nothing, Resource>(.get, "/cache/\(key)?max_age=3600", encoding: .query))
        let update = RestingRequest(endpoint: Endpoint<Nothing, Resource>(.post, "/cache/\(key)", encoding: .query))

        #expect(try await client.perform(get).value.cacheStatus == .miss)
        #expect(try await client.perform(get).value.cacheStatus == .hit)
        _ = try await client.perform(update).value

        let threads = store.threads
        #expect(threads.count == 4, "a lookup and a store, a lookup, an invalidation: \(threads)")
        if performsBlockingIO {
            #expect(threads.allSatisfy { $0 != "RestingKit.curl" }, "\(threads)")
        } else {
            #expect(threads.allSatisfy { $0 == "RestingKit.curl" }, "no hop for a store in memory: \(threads)")
        }
    }

    @Test(
        "a released client's thread ends, and tasks that still prefer its executor run on the global pool",
        .timeLimit(.minutes(5)))
    func releasedClientsExecutorStillRunsTasks() async throws {
        var transport: CurlClient? = try CurlClient()
        let executor = try #require(transport?.executor)
        #expect(await Task(executorPreference: executor) { currentThreadName() }.value == "RestingKit.curl")
        transport = nil
        // Until the thread has ended, tasks still run on it; a thread that never ends fails the time limit.
        while await Task(executorPreference: executor, operation: { currentThreadName() }).value == "RestingKit.curl" {}
        var sum = 0
        for value in 1...200 {
            sum += await Task(executorPreference: executor) { value }.value
        }
        #expect(sum == 200 * 201 / 2, "no task is lost")
    }
}

/// A memory store that notes the thread of every call, and says it blocks on I/O when told to.
private final class ThreadRecordingStore: HTTPCacheStore {
    let performsBlockingIO: Bool
    private let store = MemoryCacheStore()
    private let recorded = Locked<[String?]>([])

    init(performsBlockingIO: Bool) { self.performsBlockingIO = performsBlockingIO }

    /// The thread of each call so far, in order.
    var threads: [String?] { recorded.withLock { $0 } }

    func response(for key: String) -> CachedResponse? {
        record()
        return store.response(for: key)
    }
    func store(_ response: CachedResponse, for key: String) {
        record()
        store.store(response, for: key)
    }
    func removeResponse(for key: String) {
        record()
        store.removeResponse(for: key)
    }
    func removeAll() {
        record()
        store.removeAll()
    }

    private func record() {
        let thread = currentThreadName()
        recorded.withLock { $0.append(thread) }
    }
}

/// The name of the thread the caller runs on (`Thread.current` is for synchronous code only).
private func currentThreadName() -> String? { Thread.current.name }
