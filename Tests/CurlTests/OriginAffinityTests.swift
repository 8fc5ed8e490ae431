import Foundation
import Testing

@testable import RestingCurl

/// The placement of origins on drivers, without a socket: an HTTP/2 origin stays on one driver, an HTTP/1.x one is
/// spread, and the table stays bounded.
@Suite("Origin affinity")
struct OriginAffinityTests {
    final class Driver: Sendable {}
    let first = Driver()
    let second = Driver()

    @Test("only origins that may speak HTTP/2 are placed: https under http2OverTLS, any under prior knowledge")
    func keys() throws {
        let overTLS = OriginAffinity<Driver>(httpVersion: .http2OverTLS)
        #expect(
            overTLS.key(for: try #require(URL(string: "https://API.example.com/x"))) == "https://api.example.com:443")
        #expect(overTLS.key(for: try #require(URL(string: "https://a.example:8443/"))) == "https://a.example:8443")
        #expect(overTLS.key(for: try #require(URL(string: "http://a.example/"))) == nil)
        let prior = OriginAffinity<Driver>(httpVersion: .http2PriorKnowledge)
        #expect(prior.key(for: try #require(URL(string: "http://a.example/"))) == "http://a.example:80")
        let http1 = OriginAffinity<Driver>(httpVersion: .http1_1)
        #expect(http1.key(for: try #require(URL(string: "https://a.example/"))) == nil)
    }

    @Test("a new origin is placed on the chosen driver and stays there, learning until a response says HTTP/2")
    func multiplexedOriginsStay() {
        let affinity = OriginAffinity<Driver>(httpVersion: .http2OverTLS)
        let placed = affinity.driver(for: "https://a.example:443") { first }
        #expect(placed.driver === first && placed.learns)
        #expect(affinity.driver(for: "https://a.example:443") { second }.driver === first)
        affinity.learn("https://a.example:443", multiplexed: true)
        let kept = affinity.driver(for: "https://a.example:443") { second }
        #expect(kept.driver === first && !kept.learns)
        // A later answer over HTTP/1.1 (a transfer placed before the first answer) changes nothing.
        affinity.learn("https://a.example:443", multiplexed: false)
        #expect(affinity.driver(for: "https://a.example:443") { second }.driver === first)
    }

    @Test("an origin that answers over HTTP/1.x is spread from then on")
    func http1OriginsAreSpread() {
        let affinity = OriginAffinity<Driver>(httpVersion: .http2OverTLS)
        _ = affinity.driver(for: "https://old.example:443") { first }
        affinity.learn("https://old.example:443", multiplexed: false)
        let spread = affinity.driver(for: "https://old.example:443") { second }
        #expect(spread.driver == nil && !spread.learns)
    }

    @Test("past its capacity the table starts again: no number of origins grows it without bound")
    func bounded() {
        let affinity = OriginAffinity<Driver>(httpVersion: .http2OverTLS, capacity: 4)
        for index in 0..<4 { _ = affinity.driver(for: "https://\(index).example:443") { first } }
        #expect(affinity.driver(for: "https://0.example:443") { second }.driver === first)
        _ = affinity.driver(for: "https://4.example:443") { second }
        // The table was full: it started again, and the first origin is placed anew.
        #expect(affinity.driver(for: "https://0.example:443") { second }.driver === second)
    }
}
