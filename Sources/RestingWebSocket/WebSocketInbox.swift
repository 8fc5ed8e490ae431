import RestingCore

/// The messages a WebSocket received and its reader has not taken: at most `capacity` bytes of them (one message
/// always fits), the socket's reading loop waiting for room past that — which stops it reading the socket — and
/// the readers waiting for the next one, in the order they asked.
final class WebSocketInbox: Sendable {
    private struct State {
        var messages: [WebSocketMessage] = []
        /// Where the next message to hand out is in `messages`.
        var head = 0
        var bytes = 0
        /// How the messages end once those waiting are taken: `nil` while the socket may receive more; `.success`
        /// at the peer's close; the socket's failure.
        var ending: Result<Void, WebSocketError>?
        var readers: [(id: UInt64, continuation: CheckedContinuation<WebSocketMessage?, any Error>)] = []
        var nextReaderID: UInt64 = 0
        /// The reading loop, waiting for room.
        var producer: CheckedContinuation<Void, Never>?
        /// The socket is closing: the reading loop never waits for room any more (it reads on for the peer's close).
        var holdsProducer = true

        var hasRoom: Bool { bytes < capacity || head == messages.count || !holdsProducer }
        let capacity: Int
    }

    private let state: Locked<State>

    /// An inbox holding at most `capacity` bytes of messages.
    init(capacity: Int) { state = Locked(State(capacity: capacity)) }

    /// Hands `message` to a waiting reader or keeps it, then waits until there is room for another; `false` once
    /// the messages have ended (nobody will read them).
    func put(_ message: WebSocketMessage) async -> Bool {
        enum Outcome {
            case delivered(CheckedContinuation<WebSocketMessage?, any Error>)
            case kept(hasRoom: Bool)
            case ended
        }
        let outcome = state.withLock { state -> Outcome in
            guard state.ending == nil else { return .ended }
            if !state.readers.isEmpty { return .delivered(state.readers.removeFirst().continuation) }
            state.messages.append(message)
            state.bytes += message.byteCount
            return .kept(hasRoom: state.hasRoom)
        }
        switch outcome {
        case .ended: return false
        case .delivered(let reader):
            reader.resume(returning: message)
            return true
        case .kept(true): return true
        case .kept(false):
            await withCheckedContinuation { continuation in
                let hasRoom = state.withLock { state in
                    if state.hasRoom || state.ending != nil { return true }
                    state.producer = continuation
                    return false
                }
                if hasRoom { continuation.resume() }
            }
            return state.withLock { $0.ending == nil }
        }
    }

    /// Lets the reading loop go on whatever is kept, from now on: the socket is closing, and its reading loop must
    /// find the peer's close frame behind the messages nobody will read.
    func stopHoldingProducer() {
        let producer = state.withLock { state in
            state.holdsProducer = false
            defer { state.producer = nil }
            return state.producer
        }
        producer?.resume()
    }

    /// The next message; `nil` once the peer has closed and every message is taken; throws the socket's failure,
    /// or ``/RestingCore/RestingError/cancelled`` when the calling task is cancelled while it waits.
    func next() async throws -> WebSocketMessage? {
        // A message already kept is taken without suspending: a reader behind the socket never waits.
        if let kept = takeKept() { return try kept.mapError(\.thrown).get() }
        let id = state.withLock { state in
            defer { state.nextReaderID += 1 }
            return state.nextReaderID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                typealias Outcome = (Result<WebSocketMessage?, WebSocketError>?, CheckedContinuation<Void, Never>?)
                let (kept, producer) = state.withLock { state -> Outcome in
                    if let kept = take(from: &state) { return (kept, takeProducerIfRoom(from: &state)) }
                    if Task.isCancelled { return (.failure(.cancelled), nil) }
                    state.readers.append((id, continuation))
                    return (nil, nil)
                }
                producer?.resume()
                if let kept { continuation.resume(with: kept.mapError(\.thrown)) }
            }
        } onCancel: {
            let reader = state.withLock { state in
                state.readers.firstIndex { $0.id == id }.map { state.readers.remove(at: $0).continuation }
            }
            reader?.resume(throwing: RestingError.cancelled)
        }
    }

    /// The next kept message, or the end once none is kept; `nil` while the reader must wait.
    private func takeKept() -> Result<WebSocketMessage?, WebSocketError>? {
        let (kept, producer) = state.withLock {
            state -> (Result<WebSocketMessage?, WebSocketError>?, CheckedContinuation<Void, Never>?) in
            (take(from: &state), takeProducerIfRoom(from: &state))
        }
        producer?.resume()
        return kept
    }

    /// The reading loop waiting for room, once there is room.
    private func takeProducerIfRoom(from state: inout State) -> CheckedContinuation<Void, Never>? {
        guard state.hasRoom, let producer = state.producer else { return nil }
        state.producer = nil
        return producer
    }

    /// The next kept message, or the end once none is kept, inside the lock.
    private func take(from state: inout State) -> Result<WebSocketMessage?, WebSocketError>? {
        if state.head < state.messages.count {
            let message = state.messages[state.head]
            state.head += 1
            state.bytes -= message.byteCount
            if state.head == state.messages.count {
                state.messages.removeAll(keepingCapacity: true)
                state.head = 0
            } else if state.head * 2 >= state.messages.count {
                // A reader that stays behind never empties the array: drop what it took, so that memory holds what
                // waits and no more (amortised: no more moves than messages taken).
                state.messages.removeFirst(state.head)
                state.head = 0
            }
            return .success(message)
        }
        guard let ending = state.ending else { return nil }
        return ending.map { nil }
    }

    /// Ends the messages (the first ending counts): readers waiting get it now, others once they have taken what
    /// is kept — a failure too: what was received is the reader's. A cancellation drops what is kept: nobody wants
    /// it.
    func finish(_ ending: Result<Void, WebSocketError>) {
        let (readers, producer) = state.withLock { state in
            guard state.ending == nil else {
                return ([CheckedContinuation<WebSocketMessage?, any Error>](), CheckedContinuation<Void, Never>?.none)
            }
            state.ending = ending
            if case .failure(.cancelled) = ending {
                state.messages.removeAll()
                state.head = 0
                state.bytes = 0
            }
            defer {
                state.readers.removeAll()
                state.producer = nil
            }
            return (state.readers.map(\.continuation), state.producer)
        }
        producer?.resume()
        for reader in readers {
            switch ending {
            case .success: reader.resume(returning: nil)
            case .failure(let error): reader.resume(throwing: error.thrown)
            }
        }
    }
}
