/// A request body sent inside the object an API wraps values in — `{"data": …}`, or deeper for a dotted key path
/// (`"payload.item"`): what ``Endpoint/wrapping(_:)`` puts around a JSON body.
struct RequestEnvelope<Value: Encodable>: Encodable {
    let keys: ArraySlice<String>
    let value: Value

    func encode(to encoder: any Encoder) throws {
        guard let key = keys.first else { return try value.encode(to: encoder) }
        var container = encoder.container(keyedBy: MemberKey.self)
        try container.encode(RequestEnvelope(keys: keys.dropFirst(), value: value), forKey: MemberKey(key))
    }

    /// A member name, as written: the encoder's key strategy is not applied to an envelope's names.
    private struct MemberKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}
