/// Something that happened to one call of a ``RestingClient``, as a ``CallEventListener`` receives it: the call it
/// belongs to, when, and what.
///
/// A call's events arrive in the order its stages ran (the Architecture article draws them), and end with exactly
/// one terminal event — ``Kind/callEnded(status:)``, ``Kind/callFailed(errorType:message:)`` or
/// ``Kind/callCancelled`` — after which that call reports nothing more. A streamed call ends when its body does.
///
/// Events carry no header, no body and no credential; the URLs in them are redacted by ``RedactionPolicy/default``.
public struct CallEvent: Sendable, CustomStringConvertible {
    /// Which call: unique among one client's calls, the same in every event of the call.
    public let callID: UInt64
    /// When it happened.
    public let time: ContinuousClock.Instant
    /// What happened.
    public let kind: Kind

    /// An event of call `callID`, at `time` (a test's listener or a transport's conformance check builds them).
    public init(callID: UInt64, time: ContinuousClock.Instant = .now, kind: Kind) {
        self.callID = callID
        self.time = time
        self.kind = kind
    }

    /// What happened to a call, in the order a call meets each stage. Non-exhaustive: new stages add kinds, so a
    /// `switch` over it has a `default:`. A capability module's own events (a breaker, a hedge, a WebSocket) come as
    /// ``capabilityEvent(_:)``, each module's of a type of its own.
    @nonexhaustive
    public enum Kind: Sendable, Equatable {
        /// The call was made; nothing has run yet.
        case callStarted
        /// The call got a slot of the client's ``ConcurrencyMode`` limit after waiting `waited` (zero when a slot
        /// was free). Reported only by a client with a limit.
        case concurrencySlotAcquired(waited: Duration)
        /// The request converter built the request.
        case requestConverted(method: RequestMethod, url: String)
        /// ``RetryInterceptor`` will send the call again: `attempt` is the attempt to come (from 2), `cause` what
        /// failed the one before.
        case retryScheduled(attempt: Int, delay: Duration, cause: RetryCause)
        /// ``RetryInterceptor`` will not send the call again although its outcome was worth another attempt.
        case retryDeclined(attempt: Int, reason: RetryDeclineReason)
        /// The redirect link follows a `status` response to `url`: hop `hop` of the call (from 1).
        case redirectFollowed(status: Int, url: String, hop: Int)
        /// An HTTP cache looked at the exchange and answered as `status` says (a hit, a miss, a revalidation).
        case cacheAnswered(CacheStatus)
        /// A request passed every interceptor and the credential boundary, for the transport: `attempt` as
        /// ``RequestAttributes/attempt`` numbers it.
        case exchangeStarted(method: RequestMethod, url: String, attempt: Int)
        /// The connection the exchange went on, with the phases of opening it where the transport measured them.
        case connectionAcquired(ConnectionDetails)
        /// The request was sent: `bytes` of its body, where the transport counted them.
        case requestSent(bytes: Int64?)
        /// A response's head arrived (any status), `timeToFirstByte` after the exchange started where the transport
        /// measured it.
        case responseHeadReceived(status: Int, timeToFirstByte: Duration?)
        /// A response's body ended after `bytes` — whole (`complete`), or cut short or left by its reader. A
        /// downloaded body counts the bytes written to its file by this exchange.
        case responseBodyEnded(bytes: Int64, complete: Bool)
        /// An exchange failed before a response arrived (a transport failure, a timeout, a cancellation).
        case exchangeFailed(errorType: String)
        /// What a capability module reported: a breaker's change, a hedge, a WebSocket's message (its
        /// ``CapabilityEvent``, read back with ``capabilityEvent(as:)``). Reported with
        /// ``capability(_:)``.
        case capabilityEvent(ReportedCapabilityEvent)
        /// The call ended with an accepted `status` — for a streamed call, once its body ended; for a WebSocket
        /// (101), once it closed.
        case callEnded(status: Int)
        /// The call failed: `errorType` as ``RestingError/errorType`` names it, `message` the error's description.
        case callFailed(errorType: String, message: String)
        /// The call was cancelled (by its task, its promise, ``RestingClient/cancelAll()``), or a streamed call's
        /// reader left before the body's end.
        case callCancelled

        /// Whether this event ends its call.
        public var isTerminal: Bool {
            switch self {
            case .callEnded, .callFailed, .callCancelled: true
            default: false
            }
        }
    }

    /// What made ``RetryInterceptor`` retry.
    public enum RetryCause: Sendable, Equatable {
        /// A response with a retryable status.
        case status(Int)
        /// A retryable failure, named as ``RestingError/errorType`` names it.
        case failure(errorType: String)
    }

    /// Why ``RetryInterceptor`` did not retry an outcome it would have retried.
    @nonexhaustive
    public enum RetryDeclineReason: Sendable, Equatable {
        /// The call had made its ``RetryInterceptor/Policy/maximumAttempts``.
        case attemptsExhausted
        /// The ``RetryBudget`` had nothing left to spend.
        case budgetExhausted
        /// The call's deadline (`DeadlineInterceptor`) would pass before the attempt could start.
        case deadline
    }

    /// The connection an exchange went on, as the transport measured it (``TransferMetrics``): `nil` where it did
    /// not, and no DNS, connect or TLS phase for a connection that was reused.
    public struct ConnectionDetails: Sendable, Equatable {
        /// Whether an open connection was reused.
        public var reused: Bool?
        /// `1.1`, `2`, …
        public var protocolVersion: String?
        /// How long resolving the host took.
        public var nameLookup: Duration?
        /// How long connecting took, after the name lookup.
        public var connect: Duration?
        /// How long the TLS handshake took.
        public var tlsHandshake: Duration?

        /// Details as a transport or a test states them.
        public init(
            reused: Bool? = nil, protocolVersion: String? = nil, nameLookup: Duration? = nil,
            connect: Duration? = nil, tlsHandshake: Duration? = nil
        ) {
            self.reused = reused
            self.protocolVersion = protocolVersion
            self.nameLookup = nameLookup
            self.connect = connect
            self.tlsHandshake = tlsHandshake
        }
    }

    /// `call 3: exchangeStarted(…)`.
    public var description: String { "call \(callID): \(kind)" }
}
