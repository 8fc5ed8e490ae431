import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Calls and notifications sent together by ``JSONRPCClient/send(_:)``.
public struct JSONRPCBatch: Sendable {
    /// Where a call's result will be, typed by that result.
    public struct Handle<Result: Decodable & Sendable>: Sendable {
        let id: Int
    }

    private var encoded: [@Sendable (String) throws -> Data] = []
    private var nextID = 1

    /// An empty batch.
    public init() {}

    /// How many calls and notifications it holds.
    public var count: Int { encoded.count }

    /// Adds a call; read its result from the responses with the returned handle.
    @discardableResult
    public mutating func add<Params, Result>(_ method: JSONRPCMethod<Params, Result>, params: Params) throws -> Handle<
        Result
    > {
        let id = nextID
        nextID += 1
        encoded.append { version in
            try JSONRPCClient.encode(
                JSONRPCRequestObject(jsonrpc: version, method: method.name, params: params, id: id))
        }
        return Handle(id: id)
    }

    /// Adds a notification, which gets no response.
    public mutating func notify<Params, Result>(_ method: JSONRPCMethod<Params, Result>, params: Params) {
        encoded.append { version in
            try JSONRPCClient.encode(
                JSONRPCRequestObject(jsonrpc: version, method: method.name, params: params, id: nil))
        }
    }

    func requests(version: String) throws -> [Data] { try encoded.map { try $0(version) } }

    /// The responses of a batch, by id.
    public struct Responses: Sendable {
        private let byID: [Int: JSONRPCResponseObject]
        private let body: Data

        init(objects: [JSONRPCResponseObject], body: Data) {
            var byID: [Int: JSONRPCResponseObject] = [:]
            for object in objects {
                if let id = object.id?.value { byID[id] = object }
            }
            self.byID = byID
            self.body = body
        }

        /// The call's result, or the ``JSONRPCError`` the server returned for it.
        public func result<Result>(for handle: Handle<Result>) throws -> Result {
            guard let object = byID[handle.id] else {
                throw RestingError.decodingFailed(
                    type: String(describing: Result.self),
                    underlying: JSONRPCError(
                        code: JSONRPCError.internalError, message: "no response with id \(handle.id)"),
                    body: body)
            }
            return try Self.value(of: object, as: Result.self, body: body)
        }

        static func value<Result: Decodable>(of object: JSONRPCResponseObject, as type: Result.Type, body: Data) throws
            -> Result
        {
            if let error = object.error { throw error }
            do {
                return try (object.result ?? .null).decode(as: Result.self)
            } catch {
                throw RestingError.decodingFailed(type: String(describing: Result.self), underlying: error, body: body)
            }
        }
    }
}
