import RestingCore

/// The request object on the wire; `id` is left out for notifications and `params` for ``/RestingCore/Nothing``.
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
