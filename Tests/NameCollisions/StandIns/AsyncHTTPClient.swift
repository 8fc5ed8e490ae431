// Public type names of async-http-client 1.33 (module AsyncHTTPClient).
public final class HTTPClient {}
public struct HTTPClientRequest {}
public struct HTTPClientResponse {}
public struct HTTPClientError {}
public protocol HTTPClientResponseDelegate {}
public final class ResponseAccumulator {}
public final class FileDownloadDelegate {}
