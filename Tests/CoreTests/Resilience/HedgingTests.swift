import Foundation
import RestingTesting
import Testing

@testable import RestingCore
@testable import RestingResilience

@Suite("Hedged requests")
struct HedgingTests {
    let url = URL(string: "https://api.example.com/items")!

    /// A chain whose first send never answers until cancelled (which it records), and whose hedges answer `status`.
    private func firstSendHangs(hedgeStatus: Int = 200, cancelled: Locked<[Int]>) -> FakeChain {
        FakeChain { request in
            guard request.attributes.hedge > 0 else {
                do {
                    try await Task.sleep(for: .seconds(3600))
                } catch {
                    cancelled.withLock { $0.append(request.attributes.hedge) }
                    throw RestingError.cancelled
                }
                return HTTPDataResponse(status: 200, url: request.url)
            }
            return HTTPDataResponse(status: hedgeStatus, url: request.url)
        }
    }

    @Test("a send unanswered after the delay is hedged; the first good answer wins and the other send is cancelled")
    func hedgeWins() async throws {
        let cancelled = Locked<[Int]>([])
        let chain = firstSendHangs(cancelled: cancelled)
        let hedging = HedgingInterceptor(delay: .fixed(.milliseconds(5)), clock: VirtualClock())
        let response = try await chain.run(hedging, on: HTTPRequest(method: .get, url: url))
        #expect(response.status == 200)
        #expect(chain.requests.map(\.attributes.hedge) == [0, 1])
        #expect(cancelled.withLock { $0 } == [0])
    }

    @Test("a 5xx does not end the race while another send is in flight")
    func serverErrorDoesNotWin() async throws {
        let (hedgeSent, signal) = AsyncStream<Void>.makeStream()
        let chain = FakeChain { request in
            if request.attributes.hedge == 0 {
                for await _ in hedgeSent { break }
                return HTTPDataResponse(status: 503, url: request.url)
            }
            signal.yield()
            return HTTPDataResponse(status: 200, url: request.url)
        }
        let hedging = HedgingInterceptor(delay: .fixed(.milliseconds(5)), clock: VirtualClock())
        #expect(try await chain.run(hedging, on: HTTPRequest(method: .get, url: url)).status == 200)
    }

    @Test("each hedge takes a token of the retry budget: an empty budget sends none")
    func budgetBounds() async throws {
        let chain = FakeChain(StubResponse.status(200).delayed(by: .milliseconds(20)))
        let hedging = HedgingInterceptor(
            delay: .fixed(.milliseconds(1)), budget: RetryBudget(ratio: 0, reserve: 0), clock: VirtualClock())
        #expect(try await chain.run(hedging, on: HTTPRequest(method: .get, url: url)).status == 200)
        #expect(chain.callCount == 1)
    }

    @Test("at most maximumHedges more sends per call, each reported with its delay")
    func maximumHedges() async throws {
        let cancelled = Locked<[Int]>([])
        let chain = FakeChain { request in
            guard request.attributes.hedge == 2 else {
                do { try await Task.sleep(for: .seconds(3600)) } catch {
                    cancelled.withLock { $0.append(request.attributes.hedge) }
                }
                throw RestingError.cancelled
            }
            return HTTPDataResponse(status: 200, url: request.url)
        }
        let hedging = HedgingInterceptor(delay: .fixed(.milliseconds(3)), maximumHedges: 2, clock: VirtualClock())
        #expect(try await chain.run(hedging, on: HTTPRequest(method: .get, url: url)).status == 200)
        #expect(chain.callCount == 3 && Set(cancelled.withLock { $0 }) == [0, 1])
    }

    @Test("never hedged: a non-idempotent method, a single-pass body, a request that sets no hedges")
    func notHedged() async throws {
        let hedging = HedgingInterceptor(delay: .fixed(.zero), clock: VirtualClock())
        var post = HTTPRequest(method: .post, url: url)
        var singlePass = HTTPRequest(method: .put, url: url)
        singlePass.body = .sequence(AsyncStream<Data> { $0.finish() }, iteration: .single)
        var none = HTTPRequest(method: .get, url: url)
        none.attributes.maximumHedges = 0
        for request in [post, singlePass, none] {
            let chain = FakeChain(StubResponse.status(200).delayed(by: .milliseconds(5)))
            _ = try await chain.run(hedging, on: request)
            #expect(chain.callCount == 1, "\(request.method)")
        }
        post.attributes.isIdempotent = true
        let cancelled = Locked<[Int]>([])
        let chain = firstSendHangs(cancelled: cancelled)
        _ = try await chain.run(hedging, on: post)
        #expect(chain.callCount == 2, "a POST the endpoint marks idempotent is hedged")
    }

    @Test("the percentile delay is read from the key's recent answers, with the fallback until 20 are known")
    func percentileDelay() {
        var samples = LatencySamples()
        for millisecond in 1...19 { samples.add(Double(millisecond) / 1000) }
        #expect(samples.percentile(0.95) == nil)
        // Sorted again at the 20th sample and every 32nd after: the 116th is one.
        for millisecond in 20...116 { samples.add(Double(millisecond) / 1000) }
        #expect(samples.percentile(0.95).map { ($0 * 1000).rounded() } == 111)
        let hedging = HedgingInterceptor(delay: .percentile(0.95, fallback: .milliseconds(40)))
        #expect(hedging.hedgeDelay(for: "https://api.example.com:443") == .milliseconds(40))
    }

    @Test("a hedge is an event of its call, and its exchange carries its number")
    func events() async throws {
        let stub = StubHTTPClient()
        stub.register(.get, "/items", StubResponse.status(200).delayed(by: .seconds(3600)), .status(200))
        let events = Locked<[CallEvent.Kind]>([])
        let client = RestingClient(
            baseUrl: "https://api.example.com", httpClient: stub,
            interceptors: [HedgingInterceptor(delay: .fixed(.milliseconds(7)), clock: VirtualClock())],
            eventListener: .shared { event in events.withLock { $0.append(event.kind) } })
        _ = try await client.perform(RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/items"))).value
        let kinds = events.withLock { $0 }
        #expect(kinds.contains(.capability(ResilienceEvent.hedgeStarted(hedge: 1, delay: .milliseconds(7)))))
        #expect(kinds.filter { if case .exchangeStarted = $0 { true } else { false } }.count == 2)
        #expect(kinds.last == .callEnded(status: 200))
    }
}
