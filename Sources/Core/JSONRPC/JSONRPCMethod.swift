/// A remote procedure, typed by its parameters and its result.
///
/// ```swift
/// let subtract = JSONRPCMethod<[Int], Int>("subtract")
/// let hello = JSONRPCMethod<Nothing, Nothing>("hello")   // no params; used as a notification
/// ```
public struct JSONRPCMethod<Params: Encodable & Sendable, Result: Decodable & Sendable>: Sendable {
    /// The method's name, as the server knows it.
    public let name: String
    /// The method called `name`.
    public init(_ name: String) { self.name = name }
}

/// A JSON-RPC error object returned by the server, as a typed error.
public struct JSONRPCError: Error, Sendable, Equatable, Codable, CustomStringConvertible {
    /// The error code; the predefined ones are below.
    public let code: Int
    /// The server's short description.
    public let message: String
    /// Whatever more the server sent.
    public let data: JSONValue?

    /// An error object with this code, message and data.
    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// Invalid JSON was received by the server.
    public static let parseError = -32700
    /// The JSON sent is not a valid request object.
    public static let invalidRequest = -32600
    /// The method does not exist or is not available.
    public static let methodNotFound = -32601
    /// Invalid method parameters.
    public static let invalidParams = -32602
    /// An internal JSON-RPC error of the server.
    public static let internalError = -32603

    public var description: String { "JSON-RPC error \(code): \(message)" }
}

/// The request object on the wire; `id` is left out for notifications and `params` for ``Nothing``.
struct JSONRPCRequestObject<Params: Encodable>: Encodable {
    let jsonrpc: String
    let method: String
    let params: Params
    let id: Int?

    enum CodingKeys: String, CodingKey { case jsonrpc, method, params, id }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(jsonrpc, forKey: .jsonrpc)
        try container.encode(method, forKey: .method)
        if !(params is Nothing) { try container.encode(params, forKey: .params) }
        try container.encodeIfPresent(id, forKey: .id)
    }
}

/// A response object; the result is kept as JSON until the caller asks for it by type.
struct JSONRPCResponseObject: Decodable, Sendable {
    let id: JSONRPCIdentifier?
    let result: JSONValue?
    let error: JSONRPCError?
}

/// Ids are numbers here, but a server may echo them as strings.
struct JSONRPCIdentifier: Decodable, Hashable, Sendable {
    let value: Int?

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            value = number
        } else if let text = try? container.decode(String.self) {
            value = Int(text)
        } else {
            value = nil
        }
    }
}
