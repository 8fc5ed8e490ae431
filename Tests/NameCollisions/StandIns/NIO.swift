// Public type names of swift-nio's NIOCore and NIOHTTP1 that a server-side RestingKit user imports.
public struct ByteBuffer {}
public protocol Channel {}
public protocol EventLoop {}
public protocol EventLoopGroup {}
public final class EventLoopFuture {}
public struct EventLoopPromise {}
public struct HTTPHeaders {}
public enum HTTPMethod {}
public struct HTTPVersion {}
public enum HTTPResponseStatus {}
public struct HTTPRequestHead {}
public struct HTTPResponseHead {}
public enum HTTPParserError {}
public struct IOError {}
public enum SocketAddress {}
public struct TimeAmount {}
public struct NIODeadline {}
