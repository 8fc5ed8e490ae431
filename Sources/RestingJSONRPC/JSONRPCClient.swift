import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Calls JSON-RPC 2.0 methods over a ``/RestingCore/RestingClient``, so that its interceptors, transport and errors apply
/// (Harbor's HarborJRPC).
///
/// ```swift
/// let rpc = JSONRPCClient(client: restingClient, path: "/rpc")
/// let difference = try await rpc.call(JSONRPCMethod<[Int], Int>("subtract"), params: [42, 23])   // 19
/// try await rpc.notify(JSONRPCMethod<Nothing, Nothing>("hello"), params: Nothing())
///
/// var batch = JSONRPCBatch()
/// let sum = try batch.add(JSONRPCMethod<[Int], Int>("sum"), params: [1, 2, 4])
/// let answers = try await rpc.send(batch)
/// let seven = try answers.result(for: sum)
/// ```
///
/// A JSON-RPC error object is thrown as ``JSONRPCError`` with its code, message and data; HTTP and transport
/// failures are ``/RestingCore/RestingError``s as everywhere else.
public final class JSONRPCClient: Sendable {
    /// The client that carries the calls.
    public let client: RestingClient
    /// The endpoint path every call is posted to.
    public let path: String
    /// The `jsonrpc` member sent with every request.
    public let version: String
    private let nextID = Locked(1)
    private let endpoint: Endpoint<Data, Data>

    /// A JSON-RPC client posting to `path` on `client`.
    public init(client: RestingClient, path: String = "/rpc", version: String = "2.0") {
        self.client = client
        self.path = path
        self.version = version
        endpoint = Endpoint(.post, path, encoding: .raw(contentType: "application/json"))
    }

    /// Calls `method` and returns its result.
    public func call<Params, Result>(_ method: JSONRPCMethod<Params, Result>, params: Params) async throws -> Result {
        let id = nextID.withLock { id in
            defer { id += 1 }
            return id
        }
        let body = try Self.encode(JSONRPCRequestObject(jsonrpc: version, method: method.name, params: params, id: id))
        let response = try await post(body)
        let object: JSONRPCResponseObject
        do {
            object = try JSONDecoder().decode(JSONRPCResponseObject.self, from: response)
        } catch {
            throw RestingError.decodingFailed(type: "JSON-RPC response", underlying: error, body: response)
        }
        return try JSONRPCBatch.Responses.value(of: object, as: Result.self, body: response)
    }

    /// Sends `method` as a notification: no id, and no response expected.
    public func notify<Params, Result>(_ method: JSONRPCMethod<Params, Result>, params: Params) async throws {
        _ = try await post(
            try Self.encode(JSONRPCRequestObject(jsonrpc: version, method: method.name, params: params, id: nil)))
    }

    /// Sends every call of `batch` in one request; responses are matched to calls by id, in whatever order
    /// they come.
    public func send(_ batch: JSONRPCBatch) async throws -> JSONRPCBatch.Responses {
        let body =
            Data("[".utf8) + (try batch.requests(version: version)).joined(separator: Data(",".utf8)) + Data("]".utf8)
        let response = try await post(body)
        guard !response.isEmpty else { return JSONRPCBatch.Responses(objects: [], body: response) }
        do {
            return JSONRPCBatch.Responses(
                objects: try JSONDecoder().decode([JSONRPCResponseObject].self, from: response), body: response)
        } catch {
            // A server that cannot read the batch answers with one error object.
            if let single = try? JSONDecoder().decode(JSONRPCResponseObject.self, from: response),
                let error = single.error
            {
                throw error
            }
            throw RestingError.decodingFailed(type: "JSON-RPC batch response", underlying: error, body: response)
        }
    }

    private func post(_ body: Data) async throws -> Data {
        try await client.perform(RestingRequest(endpoint: endpoint, body: body)).value.body
    }

    static func encode(_ value: some Encodable) throws -> Data {
        do {
            return try RestingRequestConverter.Configuration.stableJSONEncoder().encode(value)
        } catch {
            throw RestingError.encodingFailed(reason: "JSON-RPC params: \(error)")
        }
    }
}
