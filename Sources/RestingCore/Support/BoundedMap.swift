#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// State kept per key that a server or a caller chooses — a host, an origin, a resilience key — in bounded memory:
/// at most about `capacity` keys, a key unused for `idleExpiry` dropped, and past the capacity the least recently
/// used dropped first. Every link that keys state by such a value keeps it here, so that a crawler or a
/// multi-tenant gateway calling a million hosts holds the state of the recent ones only.
///
/// An entry that `keeps` says still holds something (a spent quota, a server's pause, an open breaker, a call in
/// flight) outlives its idle expiry and goes last: entries that hold nothing — as good as a new one — go first. Only
/// past the capacity in kept entries alone does the least recently used of them go too, so the bound holds whatever
/// a server does. Sweeps run when the map passes its capacity and every quarter of it in new keys, and drop down to
/// three quarters, so their cost spreads over the insertions that made them (no timer, no thread).
/// Inlinable where a call reaches it (the resilience links, Digest authentication, in modules of their own): across a
/// module boundary an unspecialised map of generic keys and values costs each of their calls microseconds. The type
/// is `@usableFromInline` for that: the `@inlinable` members of a `package` type that is not are never inlined into
/// another module (Swift 6.3), and the links called them unspecialised.
@usableFromInline package struct BoundedMap<Key: Hashable, Value> {
    @usableFromInline
    struct Entry {
        @usableFromInline var value: Value
        @usableFromInline var lastUsed: Date

        @usableFromInline
        init(value: Value, lastUsed: Date) {
            self.value = value
            self.lastUsed = lastUsed
        }
    }

    @usableFromInline var entries: [Key: Entry] = [:]
    @usableFromInline var insertionsSinceSweep = 0
    @usableFromInline package let capacity: Int
    package let idleExpiry: Duration
    private let keeps: (Value, Date) -> Bool

    /// A map of at most `capacity` keys (at least 4) whose entries go once unused for `idleExpiry`, unless `keeps`
    /// says one still holds something at that time.
    package init(
        capacity: Int = 10_000, idleExpiry: Duration = .seconds(3600),
        keeps: @escaping (Value, Date) -> Bool = { _, _ in false }
    ) {
        self.capacity = max(4, capacity)
        self.idleExpiry = idleExpiry
        self.keeps = keeps
    }

    /// How many keys it holds.
    @inlinable package var count: Int { entries.count }

    /// The value of `key`, if it has one; does not count as a use.
    @inlinable package subscript(key: Key) -> Value? { entries[key]?.value }

    /// Runs `body` on `key`'s value — made by `make` when it has none — and counts it as used at `now`.
    @inlinable
    package mutating func withValue<Result>(
        for key: Key, now: Date, default make: @autoclosure () -> Value, _ body: (inout Value) throws -> Result
    ) rethrows -> Result {
        // One lookup for a key already there, the common case: its value is changed in place.
        if let result = try update(key, now: now, body) { return result }
        entries[key] = Entry(value: make(), lastUsed: now)
        insertionsSinceSweep += 1
        if entries.count > capacity || insertionsSinceSweep >= capacity / 4 { sweep(now: now, keeping: key) }
        if let result = try update(key, now: now, body) { return result }
        // Only if a sweep dropped the key it was asked to keep: never, but without a force-unwrap.
        var entry = Entry(value: make(), lastUsed: now)
        defer { entries[key] = entry }
        return try body(&entry.value)
    }

    /// Every key and its value, in no particular order; does not count as a use.
    package var elements: [(key: Key, value: Value)] { entries.map { ($0.key, $0.value.value) } }

    /// Forgets `key`.
    @inlinable
    package mutating func remove(_ key: Key) { entries[key] = nil }

    /// Runs `body` on `key`'s value if it has one, counting it as used at `now`; `nil` when it has none.
    @inlinable
    package mutating func update<Result>(_ key: Key, now: Date, _ body: (inout Value) throws -> Result) rethrows
        -> Result?
    {
        guard let index = entries.index(forKey: key) else { return nil }
        // In place: a value with storage of its own (a ring of latencies) is not copied.
        entries.values[index].lastUsed = now
        return try body(&entries.values[index].value)
    }

    /// Drops the entries idle past `idleExpiry` that hold nothing, then, above three quarters of the capacity, the
    /// least recently used of those that hold nothing, and, if still above the capacity, the least recently used of
    /// the rest down to three quarters — never `keeping`.
    @usableFromInline
    mutating func sweep(now: Date, keeping: Key) {
        insertionsSinceSweep = 0
        let expired = now - idleExpiry.seconds
        var held: [(key: Key, lastUsed: Date)] = []
        var empty: [(key: Key, lastUsed: Date)] = []
        for (key, entry) in entries where key != keeping {
            if keeps(entry.value, now) {
                held.append((key, entry.lastUsed))
            } else if entry.lastUsed <= expired {
                entries[key] = nil
            } else {
                empty.append((key, entry.lastUsed))
            }
        }
        let target = capacity * 3 / 4
        for (key, _) in empty.sorted(by: { $0.lastUsed < $1.lastUsed }).prefix(max(0, entries.count - target)) {
            entries[key] = nil
        }
        // Past the capacity in held entries alone, they go too, down to the same three quarters: a sweep per
        // insertion would cost the whole map each time.
        guard entries.count > capacity else { return }
        for (key, _) in held.sorted(by: { $0.lastUsed < $1.lastUsed }).prefix(max(0, entries.count - target)) {
            entries[key] = nil
        }
    }
}
