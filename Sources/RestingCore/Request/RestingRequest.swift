#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value a path variable may take: anything with a textual form, such as `Int`, `String` or `UUID`.
/// (Optionals are not: a missing value must be left out, so that it is reported as missing.)
public typealias PathVariableValue = CustomStringConvertible & Sendable

/// One call to an ``Endpoint``: the body, and the per-request headers, path variables and query items.
///
/// ```swift
/// let request = RestingRequest(endpoint: getPost, body: Nothing(), pathVariables: ["post_id": 1])
/// ```
///
/// Values given here win over those of the converter's header and path-variable providers.
public struct RestingRequest<RequestType: Encodable & Sendable, ResponseType: Decodable & Sendable>: Sendable {
    /// The endpoint called.
    public var endpoint: Endpoint<RequestType, ResponseType> {
        // Read in place: code generic over the endpoint's types copies and destroys one through the runtime's
        // metadata, which it looks up first (about 0.1 µs each time).
        _read { yield box.fields.endpoint }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.endpoint }
    }
    /// The body, encoded as the endpoint says (``Nothing`` for none).
    public var body: RequestType {
        get { box.fields.body }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.body }
    }
    /// Headers for this request only, in order; they replace provider headers of the same name.
    public var headers: HTTPHeaderFields {
        get { box.fields.headers }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.headers }
    }
    /// Values for the template's variables; they win over the path-variable provider's.
    public var pathVariables: [String: any PathVariableValue] {
        get { box.fields.pathVariables }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.pathVariables }
    }
    /// Query items added after those encoded from the body (for `.query` endpoints), in this order.
    public var queryItems: [URLQueryItem] {
        get { box.fields.queryItems }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.queryItems }
    }
    /// The longest this call may take; `nil` leaves it to the transport.
    public var timeout: Duration? {
        get { box.fields.timeout }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.timeout }
    }
    /// Options for the interceptors for this call only; they win over the endpoint's
    /// ``Endpoint/attributes``.
    public var attributes: RequestAttributes {
        get { box.fields.attributes }
        _modify { yield &CopyOnWriteBox.unique(&box).fields.attributes }
    }

    // One copy-on-write box, as in `HTTPRequest`: a request is captured by its call's closures and sits in the async
    // frames of the code that sends it for as long as the call (or a stream it opened) waits.
    private var box: CopyOnWriteBox<Fields>

    private struct Fields: Sendable {
        var endpoint: Endpoint<RequestType, ResponseType>
        var headers: HTTPHeaderFields
        var pathVariables: [String: any PathVariableValue]
        var queryItems: [URLQueryItem]
        var timeout: Duration?
        var attributes: RequestAttributes
        // Last: the fields before the one of a generic type are at offsets known without this type's metadata, which
        // each of their reads would otherwise look up.
        var body: RequestType
    }

    /// A call to `endpoint` with these values; only the endpoint is required.
    public init(
        endpoint: Endpoint<RequestType, ResponseType>, body: RequestType, headers: HTTPHeaderFields = [:],
        pathVariables: [String: any PathVariableValue] = [:], queryItems: [URLQueryItem] = [],
        timeout: Duration? = nil, attributes: RequestAttributes = RequestAttributes()
    ) {
        box = CopyOnWriteBox(
            Fields(
                endpoint: endpoint, headers: headers, pathVariables: pathVariables, queryItems: queryItems,
                timeout: timeout, attributes: attributes, body: body))
    }
}

extension RestingRequest where RequestType == Nothing {
    /// A request with no body.
    public init(
        endpoint: Endpoint<Nothing, ResponseType>, headers: HTTPHeaderFields = [:],
        pathVariables: [String: any PathVariableValue] = [:], queryItems: [URLQueryItem] = [],
        timeout: Duration? = nil, attributes: RequestAttributes = RequestAttributes()
    ) {
        self.init(
            endpoint: endpoint, body: Nothing(), headers: headers, pathVariables: pathVariables,
            queryItems: queryItems, timeout: timeout, attributes: attributes)
    }
}
