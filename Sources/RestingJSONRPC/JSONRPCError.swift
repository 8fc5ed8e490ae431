import RestingCore

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
