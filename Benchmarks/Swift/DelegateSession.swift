import Foundation
import RestingCore
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The least a delegate-backed URLSession client does: data tasks whose body chunks and completion arrive
/// through a session delegate that also refuses URLSession's own redirects, and JSON decoding. What
/// `URLSessionClient` needs a delegate for (redirects handled safely, a bound on response size, progress)
/// costs FoundationNetworking this much over `data(for:)`, whatever the client does on top.
final class DelegateSession: NSObject, URLSessionDataDelegate, Sendable {
    private struct Pending {
        var body = Data()
        var continuation: CheckedContinuation<Data, any Error>?
    }

    private let pending = Mutex([Int: Pending]())
    private let session = Mutex<URLSession?>(nil)

    init(configuration: URLSessionConfiguration) {
        super.init()
        session.withLock { $0 = URLSession(configuration: configuration, delegate: self, delegateQueue: nil) }
    }

    func data(for request: URLRequest) async throws -> Data {
        guard let session = session.withLock({ $0 }) else { throw URLError(.unknown) }
        return try await withCheckedThrowingContinuation { continuation in
            let task = session.dataTask(with: request)
            pending.withLock { $0[task.taskIdentifier] = Pending(continuation: continuation) }
            task.resume()
        }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        pending.withLock { $0[dataTask.taskIdentifier]?.body.append(data) }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let finished = pending.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        if let error {
            finished.continuation?.resume(throwing: error)
        } else {
            finished.continuation?.resume(returning: finished.body)
        }
    }
}
