import RestingCore

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
