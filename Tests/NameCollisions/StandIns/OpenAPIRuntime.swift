// The public type names of swift-openapi-runtime 1.11 (module OpenAPIRuntime) that a RestingKit user could meet.
public struct AcceptHeaderContentType {}
public struct Base64EncodedData {}
public struct ClientError {}
public protocol ClientMiddleware {}
public protocol ClientTransport {}
public struct Configuration {}
public struct HTTPBody {}
public struct JSONLinesDeserializationSequence {}
public struct MultipartBody {}
public struct MultipartPart {}
public struct MultipartRawPart {}
public struct OpenAPIValueContainer {}
public struct ServerError {}
public struct ServerSentEvent {}
public struct ServerSentEventWithJSONData {}
public struct ServerSentEventsDeserializationSequence {}
public struct UndocumentedPayload {}
