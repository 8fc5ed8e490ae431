#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The masking keys of the frames one socket sends. RFC 6455 §5.3 wants each unpredictable, from a strong source of
/// entropy: they come from the system's generator, 32 at a time, because asking it for each key costs a system call
/// a message on Linux (`getrandom`), as much as the rest of a small send. A socket's own, so that no keys drawn before
/// a `fork` are shared by two processes' new sockets; none is drawn before the socket sends.
struct MaskingKeys {
    private var keys: [UInt32] = []
    private static let batch = 32

    /// The next key.
    mutating func next() -> UInt32 {
        if keys.isEmpty { keys = Self.fresh() }
        return keys.removeLast()
    }

    /// A batch of keys from the system's generator, in one read where it can.
    private static func fresh() -> [UInt32] {
        [UInt32](unsafeUninitializedCapacity: batch) { keys, count in
            let bytes = batch * MemoryLayout<UInt32>.size
            #if canImport(Darwin)
            arc4random_buf(keys.baseAddress, bytes)
            #else
            // Opened for each batch, not kept: a descriptor kept for the process's life could be closed by an app
            // that closes what it inherited, and its number reused by a file whose bytes are anything but random.
            let urandom = open("/dev/urandom", O_RDONLY | O_CLOEXEC)
            let filled = urandom >= 0 && read(urandom, keys.baseAddress, bytes) == bytes
            if urandom >= 0 { close(urandom) }
            if !filled {
                // No such device here, or a short read: key by key, as `UInt32.random` draws them.
                var generator = SystemRandomNumberGenerator()
                for index in 0..<batch { keys[index] = generator.next() }
            }
            #endif
            count = batch
        }
    }
}
