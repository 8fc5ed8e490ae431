import Testing

@testable import RestingCore

@Suite("The registry behind cancelAll")
struct CallRegistryTests {
    @Test("a registered call is cancelled by cancelAll once, and leaves nothing behind when it settles")
    func cancelledThenSettled() throws {
        let registry = CallRegistry()
        let cancels = Locked(0)
        let id = try #require(registry.reserve())
        registry.register(id) { cancels.withLock { $0 += 1 } }
        registry.cancelAll()
        registry.cancelAll()
        registry.settle(id)
        #expect(cancels.withLock { $0 } == 1)
        #expect(registry.count == 0)
    }

    @Test(
        "a call cancelAll reaches between its reservation and its registration is cancelled as it registers, once"
    )
    func cancelledBeforeRegistered() throws {
        let registry = CallRegistry()
        let cancels = Locked(0)
        let id = try #require(registry.reserve())
        registry.cancelAll()
        registry.register(id) { cancels.withLock { $0 += 1 } }
        registry.cancelAll()
        #expect(cancels.withLock { $0 } == 1)
        registry.settle(id)
        #expect(registry.count == 0)
    }

    @Test("a call reserved after a cancelAll is not cancelled by it")
    func reservedAfterCancelAll() throws {
        let registry = CallRegistry()
        let cancels = Locked(0)
        registry.cancelAll()
        let id = try #require(registry.reserve())
        registry.register(id) { cancels.withLock { $0 += 1 } }
        #expect(cancels.withLock { $0 } == 0)
        registry.settle(id)
        #expect(registry.count == 0)
    }

    @Test("a call that settles before it is registered is never registered: cancelAll does not reach it")
    func settledBeforeRegistered() throws {
        let registry = CallRegistry()
        let cancels = Locked(0)
        let id = try #require(registry.reserve())
        registry.settle(id)
        registry.register(id) { cancels.withLock { $0 += 1 } }
        registry.cancelAll()
        #expect(cancels.withLock { $0 } == 0)
        #expect(registry.count == 0)
    }

    @Test("settling a call twice, or an id the registry never gave, leaves nothing behind")
    func settledTwice() throws {
        let registry = CallRegistry()
        let id = try #require(registry.add {})
        registry.settle(id)
        registry.settle(id)
        registry.settle(id + 1000)
        #expect(registry.count == 0)
    }

    @Test("of calls added, some settled and the rest cancelled, then settled, the registry holds only running ones")
    func manyCalls() throws {
        let registry = CallRegistry()
        let running = (0..<10).compactMap { _ in registry.add {} }
        try #require(running.count == 10)
        for id in running.prefix(4) { registry.settle(id) }
        #expect(registry.count == 6)
        registry.cancelAll()
        for id in running.dropFirst(4) { registry.settle(id) }
        #expect(registry.count == 0)
    }

    @Test("once shut down it takes no call, and the shutdown returns when the last call made before has settled")
    func shutDown() async throws {
        let registry = CallRegistry()
        let reserved = try #require(registry.reserve())
        let added = try #require(registry.add {})
        let shutDown = Task { await registry.shutDown(gracePeriod: nil) }
        // The shutdown has begun once a new call is refused.
        while let probe = registry.add(cancel: {}) {
            registry.settle(probe)
            await Task.yield()
        }
        #expect(registry.reserve() == nil)
        registry.settle(added)
        registry.register(reserved) {}
        #expect(registry.count == 1, "a call reserved before the shutdown still counts until it settles")
        registry.settle(reserved)
        await shutDown.value
        #expect(registry.count == 0)
        await registry.shutDown(gracePeriod: nil)  // again: returns at once
    }

    @Test("with no grace, a shutdown made from inside a call cancels every other call at once, and not its own")
    func noGraceFromInsideACall() async throws {
        let registry = CallRegistry()
        let cancelled = Locked<[String]>([])
        let other = try #require(registry.reserve())
        registry.register(other) {
            cancelled.withLock { $0.append("other") }
            registry.settle(other)  // as a cancelled call does, once its task has ended
        }
        let own = try #require(registry.reserve())
        registry.register(own) { cancelled.withLock { $0.append("own") } }
        await registry.running(own) { await registry.shutDown(gracePeriod: .zero) }
        #expect(cancelled.withLock { $0 } == ["other"])
        registry.settle(own)
        #expect(registry.count == 0)
    }
}
