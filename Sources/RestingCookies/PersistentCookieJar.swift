import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A jar whose persistent cookies (those with `Expires` or `Max-Age`) survive the process, crashes included.
///
/// Every change is written to a file in `directory` atomically — a temporary file, flushed (`fsync`), renamed
/// into place, the directory flushed — before ``receive(setCookieFields:from:)`` returns: a cookie the jar
/// acknowledged is never lost, and the file is never half-written, even under `kill -9` or a power cut.
/// Session cookies stay in memory, as RFC 6265 says they end with the session. The directory is private
/// (mode 0700): cookies are credentials.
///
/// ```swift
/// let jar = try PersistentCookieJar(directory: appSupport.appendingPathComponent("cookies"))
/// ```
public final class PersistentCookieJar: CookieJar {
    private let state: Locked<State>
    /// The generation of the last snapshot on disk: writes are serialised, and an older snapshot is never
    /// written over a newer one.
    private let written = Locked(0)
    private let directory: DurableDirectory
    private let now: @Sendable () -> Date
    static let fileName = "cookies.json"

    private struct State {
        var store: CookieStore
        var generation = 0
    }

    /// Opens (or creates) the jar stored in `directory`. A file that cannot be read is moved to the directory's
    /// `quarantine` folder and the jar starts empty: a damaged file must not stop the app, nor be served.
    public init(
        directory: URL, publicSuffixes: PublicSuffixList = .builtIn, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.directory = try DurableDirectory(directory)
        self.now = now
        var cookies: [Cookie] = []
        if try self.directory.names().contains(Self.fileName) {
            do {
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .secondsSince1970
                cookies = try decoder.decode([Cookie].self, from: self.directory.read(Self.fileName))
            } catch {
                try self.directory.quarantine(Self.fileName)
            }
        }
        let current = now()
        state = Locked(
            State(
                store: CookieStore(
                    publicSuffixes: publicSuffixes, cookies: cookies.filter { !$0.isExpired(at: current) })))
    }

    public func cookies(for url: URL) async -> [Cookie] {
        let now = now()
        // Last-access times change here; they are saved with the next change, not for every request.
        return state.withLock { $0.store.cookies(for: url, now: now) }
    }

    public func receive(setCookieFields fields: [String], from url: URL) async throws {
        let now = now()
        let snapshot: (generation: Int, cookies: [Cookie])? = state.withLock { state in
            let before = state.store.cookies.filter(\.isPersistent)
            for field in fields { state.store.receive(field, from: url, now: now) }
            let after = state.store.cookies.filter(\.isPersistent)
            guard after != before else { return nil }
            state.generation += 1
            return (state.generation, after)
        }
        guard let snapshot else { return }
        // Blocking file I/O: off the transport's executor, where it would stall every transfer.
        try await withTaskExecutorPreference(globalConcurrentExecutor) {
            try self.write(snapshot.cookies, generation: snapshot.generation)
        }
    }

    /// Every cookie held that has not expired.
    public var allCookies: [Cookie] {
        let now = now()
        return state.withLock { $0.store.cookies.filter { !$0.isExpired(at: now) } }
    }

    /// Forgets every cookie, on disk too.
    public func removeAll() throws {
        let generation = state.withLock { state in
            state.store.removeAll()
            state.generation += 1
            return state.generation
        }
        try write([], generation: generation)
    }

    private func write(_ cookies: [Cookie], generation: Int) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .secondsSince1970
        let data = try encoder.encode(cookies)
        try written.withLock { written in
            // A newer snapshot (holding this one's changes) is already on disk.
            guard generation > written else { return }
            try directory.write(data, as: Self.fileName)
            written = generation
        }
    }
}
