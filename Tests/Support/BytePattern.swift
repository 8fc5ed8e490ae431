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
    private static let window = 1 << 20
    private static let periods = Data((0..<(window + 251)).map { UInt8($0 % 251) })

    /// Bytes checked so far.
    public private(set) var received = 0
    /// Whether every byte so far was where the pattern puts it.
    public private(set) var isIntact = true

    public init() {}

    /// Records `chunk`; false once any byte so far was out of place.
    @discardableResult
    public mutating func continues(with chunk: Data) -> Bool {
        var offset = chunk.startIndex
        while offset < chunk.endIndex, isIntact {
            let count = min(Self.window, chunk.endIndex - offset)
            let start = received % 251
            isIntact = chunk[offset..<(offset + count)] == Self.periods[start..<(start + count)]
            received += count
            offset += count
        }
        return isIntact
    }
}
