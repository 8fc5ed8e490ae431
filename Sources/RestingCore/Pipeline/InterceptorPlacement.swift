/// Where an interceptor must stand in a client's chain, for one whose meaning depends on it: its list, and its rank
/// in an order it shares with others (a deadline before the retries it bounds, cookies before the cache that keys on
/// them). A ``RestingClient`` checks every ``PlacedInterceptor`` when it is made; one out of place makes each of its
/// calls fail with ``RestingError/interceptorMisuse(interceptor:reason:)`` naming it, and
/// ``RestingClient/configurationError`` says so at once.
///
/// A capability module of your own places its links the same way:
///
/// ```swift
/// extension AuditInterceptor: PlacedInterceptor {
///     var placement: InterceptorPlacement {
///         InterceptorPlacement(order: "audit", rank: 1, list: .network, name: "AuditInterceptor")
///     }
/// }
/// ```
public struct InterceptorPlacement: Sendable, Equatable {
    /// Which of a client's lists an interceptor may stand in.
    public enum List: Sendable, Equatable {
        /// `interceptors`: once per call.
        case application
        /// `networkInterceptors`: once per exchange on the wire, redirect hops included.
        case network
        /// Either.
        case either
    }

    /// The order's name (`"resilience"`): interceptors of one order stand by ascending ``ranks``, reading the
    /// application interceptors and then the network ones — the order a request passes them. An empty name places
    /// the interceptor in no order (only its list is checked).
    public let order: String
    /// Where in its order: a lower rank stands nearer the caller. An interceptor made of several links of the order
    /// spans their ranks: what stands before it must rank no higher than its first, what stands after it no lower
    /// than its last.
    public let ranks: ClosedRange<Int>
    /// Where it may stand.
    public let list: List
    /// How a failure names it (its type's name).
    public let name: String

    /// A placement of `name` spanning `ranks` of `order`, in `list` (one rank: `rank...rank`).
    public init(order: String, ranks: ClosedRange<Int>, list: List, name: String) {
        self.order = order
        self.ranks = ranks
        self.list = list
        self.name = name
    }

    /// A placement of `name` at `rank` of `order`, in `list`.
    public init(order: String, rank: Int, list: List, name: String) {
        self.init(order: order, ranks: rank...rank, list: list, name: name)
    }

    /// The first rule `interceptors` and `networkInterceptors` break, as the error each call fails with; `nil` when
    /// every placed interceptor stands where it may.
    static func misplacement(
        interceptors: [any RestingInterceptor], networkInterceptors: [any RestingInterceptor]
    ) -> RestingError? {
        var last: [String: InterceptorPlacement] = [:]
        let placed =
            interceptors.compactMap { ($0 as? any PlacedInterceptor)?.placement }.map { ($0, List.application) }
            + networkInterceptors.compactMap { ($0 as? any PlacedInterceptor)?.placement }.map { ($0, List.network) }
        for (placement, list) in placed {
            if placement.list != .either, placement.list != list {
                let wanted = placement.list == .network ? "networkInterceptors" : "interceptors"
                return .interceptorMisuse(interceptor: placement.name, reason: "must stand in \(wanted)")
            }
            if let before = last[placement.order], before.ranks.upperBound > placement.ranks.lowerBound {
                return .interceptorMisuse(
                    interceptor: placement.name,
                    reason: "must stand before \(before.name) (the \(placement.order) order)")
            }
            if !placement.order.isEmpty { last[placement.order] = placement }
        }
        return nil
    }
}

/// An interceptor that must stand at a given place of the chain: see ``InterceptorPlacement``.
public protocol PlacedInterceptor: RestingInterceptor {
    /// Where it must stand.
    var placement: InterceptorPlacement { get }
}
