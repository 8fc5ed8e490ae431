/// Caps retries to a fraction of requests, shared by every request of a client, so that an outage is not
/// amplified by retries.
///
/// Each request deposits `ratio` tokens, each retry costs one, and the balance never exceeds `reserve`
/// (which is also where it starts): a burst of up to `reserve` retries is allowed, and after that at most
/// `ratio` retries per request.
///
/// ```swift
/// let budget = RetryBudget(ratio: 0.1, reserve: 10)   // share one instance between interceptors
/// ```
public final class RetryBudget: Sendable {
    /// The tokens each request deposits: the long-run share of requests that may be retried.
    public let ratio: Double
    /// The most tokens the budget holds, and where it starts: the burst of retries allowed.
    public let reserve: Double
    private let balance: Locked<Double>

    /// A budget allowing `ratio` retries per request in the long run and bursts of `reserve`.
    public init(ratio: Double = 0.2, reserve: Int = 10) {
        self.ratio = ratio
        self.reserve = Double(reserve)
        balance = Locked(Double(reserve))
    }

    func recordRequest() {
        balance.withLock { $0 = min(reserve, $0 + ratio) }
    }

    /// Takes the cost of one retry, or says no.
    package func withdraw() -> Bool {
        balance.withLock { balance in
            guard balance >= 1 else { return false }
            balance -= 1
            return true
        }
    }
}

/// The retry budget a request of this call has already deposited into, so that a second interceptor sharing it
/// (retry and hedging) does not deposit twice.
enum BudgetDepositKey: RequestAttributeKey {
    static let defaultValue: ObjectIdentifier? = nil
}

extension RetryBudget {
    /// Deposits `request`'s share once per call, whichever of the interceptors sharing this budget sees it first,
    /// and marks `request` so that the others do not.
    package func recordRequest(_ request: inout HTTPRequest) {
        let id = ObjectIdentifier(self)
        guard request.attributes[BudgetDepositKey.self] != id else { return }
        request.attributes[BudgetDepositKey.self] = id
        recordRequest()
    }
}
