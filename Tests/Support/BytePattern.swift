import Foundation

/// Checks that chunks continue the byte pattern the test servers send (byte `i` is `i % 251`), at `memcmp`
/// speed: byte-by-byte loops in a debug build under a sanitizer starve every other test of CPU.
///
/// ```swift
/// var pattern = BytePattern()
/// for try await chunk in body { #expect(pattern.continues(with: chunk)) }
/// #expect(pattern.received == size)
/// ```
public struct BytePattern: Sendable {
    /// The pattern from offset 0, long enough that any slice of up to `window` bytes starts in its first period.
    /// An array, not `Data`: LeakSanitizer cannot follow a global `Data`'s tagged storage and reports it.
    private static let window = 1 << 20
    private static let periods = (0..<(window + 251)).map { UInt8($0 % 251) }

    /// Bytes checked so far.
    public private(set) var received = 0
    /// Whether every byte so far was where the pattern puts it.
    public private(set) var isIntact = true

    public init() {}

    /// Records `chunk`; false once any byte so far was out of place.
    @discardableResult
    public mutating func continues(with chunk: Data) -> Bool {
        chunk.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count, isIntact {
                let count = min(Self.window, bytes.count - offset)
                let start = received % 251
                isIntact = Self.periods.withUnsafeBytes { periods in
                    periods.baseAddress.map { memcmp(base + offset, $0 + start, count) == 0 } ?? false
                }
                received += count
                offset += count
            }
        }
        return isIntact
    }
}
