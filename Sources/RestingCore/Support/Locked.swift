#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A value guarded by a `pthread_mutex_t`.
///
/// The project's one lock type. It is pthread-based rather than `Synchronization.Mutex` because
/// ThreadSanitizer on Linux does not see `Mutex` hand-offs, and every sanitizer report must mean a real bug.
/// The value and the mutex share one allocation. Never call out to user code while holding it. `@usableFromInline`, so
/// that ``withLock(_:)`` is inlined into the other modules (a `package` type's `@inlinable` members are not otherwise).
///
/// On Linux the mutex is glibc's adaptive kind: a thread that finds it held spins a little before it sleeps, as the
/// sections it guards are short. With the default kind, calls refused at once on the two drivers of one client slept
/// in the kernel 0.45 times a call (`futex`), and 0.003 times with this one.
@usableFromInline package struct Locked<Value>: @unchecked Sendable {
    @usableFromInline
    final class Storage: ManagedBuffer<Value, pthread_mutex_t> {
        // ManagedBuffer destroys the header (the value) itself; the tail-allocated mutex is ours.
        deinit {
            withUnsafeMutablePointerToElements { mutex in _ = pthread_mutex_destroy(mutex) }
        }
    }

    @usableFromInline let storage: Storage

    package init(_ value: Value) {
        let buffer = Storage.create(minimumCapacity: 1) { _ in value }
        storage = unsafeDowncast(buffer, to: Storage.self)
        storage.withUnsafeMutablePointerToElements { mutex in
            mutex.initialize(to: pthread_mutex_t())
            #if canImport(Glibc)
            var attributes = pthread_mutexattr_t()
            pthread_mutexattr_init(&attributes)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
            _ = pthread_mutex_init(mutex, &attributes)
            pthread_mutexattr_destroy(&attributes)
            #else
            _ = pthread_mutex_init(mutex, nil)
            #endif
        }
    }

    /// Runs `body` on the value, the lock held. Inlinable: every module's shared state goes through it, and across a
    /// module boundary an unspecialised call costs more than the lock.
    @inlinable
    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try storage.withUnsafeMutablePointers { value, mutex in
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }
}
