import Testing

@testable import RestingCore

@Suite("The registry behind cancelAll")
struct CallRegistryTests {
    @Test("a registered call is cancelled by cancelAll once, and leaves nothing behind when it settles")
    func cancelledThenSettled() {
        let registry = CallRegistry()
        let cancels = Locked(0)
        let id = registry.reserve()
        registry.register(id) { cancels.withLock { $0 += 1 } }
        registry.cancelAll()
        registry.cancelAll()
        registry.settle(id)
        #expect(cancels.withLock { $0 } == 1)
        #expect(registry.count == 0)
    }

    @Test("a call that settles before it is registered is never registered: cancelAll does not reach it")
    func settledBeforeRegistered() {
        let registry = CallRegistry()
        let cancels = Locked(0)
        let id = registry.reserve()
        registry.settle(id)
        registry.register(id) { cancels.withLock { $0 += 1 } }
        registry.cancelAll()
        #expect(cancels.withLock { $0 } == 0)
        #expect(registry.count == 0)
    }

    @Test("of calls added, some settled and the rest cancelled, then settled, the registry holds only running ones")
    func manyCalls() {
        let registry = CallRegistry()
        let running = (0..<10).map { _ in registry.add {} }
        for id in running.prefix(4) { registry.settle(id) }
        #expect(registry.count == 6)
        registry.cancelAll()
        for id in running.dropFirst(4) { registry.settle(id) }
        #expect(registry.count == 0)
    }
}
