import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A whole WebSocket message, however many frames it came in.
///
/// ```swift
/// for try await message in socket {
///     switch message {
///     case .text(let text): print(text)
///     case .binary(let bytes): try save(bytes)
///     }
/// }
/// ```
public enum WebSocketMessage: Sendable, Equatable {
    /// A text message (UTF-8 on the wire, checked as it arrives).
    case text(String)
    /// A binary message.
    case binary(Data)

    /// Whether it is a text message.
    package var isText: Bool {
        if case .text = self { return true }
        return false
    }

    /// The message's size on the wire before any compression: its UTF-8 bytes, or its bytes.
    public var byteCount: Int {
        switch self {
        case .text(let text): text.utf8.count
        case .binary(let data): data.count
        }
    }
}

/// A close code (RFC 6455 §7.4): why a WebSocket is closing.
///
/// ```swift
/// await socket.close(code: .goingAway, reason: "the app is going to the background")
/// ```
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt16
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 1000: the purpose of the connection is fulfilled.
    public static let normalClosure = Self(rawValue: 1000)
    /// 1001: an endpoint is going away (a server shutting down, a client leaving).
    public static let goingAway = Self(rawValue: 1001)
    /// 1002: a protocol error.
    public static let protocolError = Self(rawValue: 1002)
    /// 1003: a kind of data the endpoint cannot accept.
    public static let unsupportedData = Self(rawValue: 1003)
    /// 1005: the close frame carried no code (never sent; what ``WebSocketClosure/code`` says then).
    public static let noStatusReceived = Self(rawValue: 1005)
    /// 1006: the connection ended without a close frame (never sent).
    public static let abnormalClosure = Self(rawValue: 1006)
    /// 1007: a text message that is not UTF-8.
    public static let invalidFramePayloadData = Self(rawValue: 1007)
    /// 1008: a message that violates the endpoint's policy.
    public static let policyViolation = Self(rawValue: 1008)
    /// 1009: a message too big to process.
    public static let messageTooBig = Self(rawValue: 1009)
    /// 1010: the server did not negotiate an extension the client requires.
    public static let mandatoryExtension = Self(rawValue: 1010)
    /// 1011: the server met an unexpected condition.
    public static let internalServerError = Self(rawValue: 1011)

    /// Whether the code may be sent in a close frame (§7.4.1–7.4.2 and IANA's registry): 1000–1003, 1007–1014 (1012
    /// Service Restart, 1013 Try Again Later and 1014 Bad Gateway were registered after RFC 6455), and 3000–4999
    /// (registered and private codes); never 1005, 1006, 1015 or the rest of the reserved range.
    public var isSendable: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }

    public var description: String { String(rawValue) }
}

/// How the peer closed a WebSocket: the code and reason of its close frame.
public struct WebSocketClosure: Sendable, Equatable {
    /// The peer's code; ``WebSocketCloseCode/noStatusReceived`` when its close frame had none.
    public var code: WebSocketCloseCode
    /// The peer's reason (at most 123 bytes of UTF-8), often empty.
    public var reason: String

    /// A closure with `code` and `reason`.
    public init(code: WebSocketCloseCode, reason: String = "") {
        self.code = code
        self.reason = reason
    }
}

extension WebSocketClosure {
    /// `reason`'s UTF-8, cut to the 123 bytes a close frame has room for, at a character's end: what every side that
    /// sends a close frame (the WebSocket module, a transport's own WebSocket) puts after the code.
    package static func reasonPayload(_ reason: String) -> Data {
        var cut = reason.utf8.count <= 123 ? Substring(reason) : Substring()
        if cut.isEmpty, !reason.isEmpty {
            for character in reason where cut.utf8.count + character.utf8.count <= 123 { cut.append(character) }
        }
        return Data(cut.utf8)
    }
}
