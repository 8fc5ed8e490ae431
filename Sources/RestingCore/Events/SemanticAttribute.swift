/// One of OpenTelemetry's HTTP client attributes of an exchange. They are named here once, for the swift-log,
/// swift-metrics and tracing integrations alike: a span keeps a value typed, a metric's dimension and a log entry's
/// metadata take it as ``text``.
package struct SemanticAttribute: Sendable, Equatable {
    package enum Value: Sendable, Equatable {
        case text(String)
        case number(Int)
    }

    package let key: String
    package let value: Value

    init(_ key: String, _ value: String) { (self.key, self.value) = (key, .text(value)) }
    init(_ key: String, _ value: Int) { (self.key, self.value) = (key, .number(value)) }

    /// The value as a dimension or a log entry's metadata show it.
    package var text: String {
        switch value {
        case .text(let text): text
        case .number(let number): String(number)
        }
    }

    /// `http.request.method`, `server.address` and `server.port` (the URL's, or its scheme's default): the server an
    /// exchange went to, which every metric of it is counted by.
    package static func server(of request: HTTPRequest) -> [Self] {
        let port = request.url.port ?? (request.url.scheme?.lowercased() == "https" ? 443 : 80)
        return [
            Self("http.request.method", request.method.rawValue), Self("server.address", request.url.host ?? ""),
            Self("server.port", port),
        ]
    }

    /// `http.response.status_code`, `network.protocol.version` where the transport told it, and `error.type` when
    /// the exchange ended in error (`errorType`: ``ExchangeEnding/errorType``'s rule).
    package static func outcome(of response: HTTPDataResponse?, errorType: String?) -> [Self] {
        var attributes: [Self] = []
        if let response {
            attributes.append(Self("http.response.status_code", response.status))
            if let version = response.metrics?.protocolVersion {
                attributes.append(Self("network.protocol.version", version))
            }
        }
        if let errorType { attributes.append(Self("error.type", errorType)) }
        return attributes
    }
}

extension ExchangeEnding {
    /// OpenTelemetry's attributes of how the exchange ended: ``SemanticAttribute/outcome(of:errorType:)``.
    package var outcomeAttributes: [SemanticAttribute] { SemanticAttribute.outcome(of: response, errorType: errorType) }
}
