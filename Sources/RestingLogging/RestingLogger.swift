import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How much ``LoggingInterceptor`` writes.
public enum LogLevel: Int, Sendable, Comparable, Codable {
    /// Nothing.
    case none
    /// Failures and responses outside 2xx, one line each.
    case error
    /// One line per exchange: method, URL, status, duration.
    case info
    /// The whole exchange as a tree: headers and bodies, redacted.
    case verbose

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Where ``LoggingInterceptor`` writes. Bridge it to your logging system in a few lines; for swift-log:
///
/// ```swift
/// struct SwiftLogBridge: RestingLogger {
///     let logger: Logging.Logger
///     func log(level: LogLevel, message: String) {
///         logger.log(level: level == .error ? .error : level == .info ? .info : .debug, "\(message)")
///     }
/// }
/// ```
public protocol RestingLogger: Sendable {
    /// Writes one message at `level`; called on the calling task, so keep it quick.
    func log(level: LogLevel, message: String)
}

/// Writes each message to standard error, the default logger.
public struct StandardErrorLogger: RestingLogger {
    /// A logger writing to standard error.
    public init() {}

    /// Writes `message` and a newline to standard error, in one write.
    public func log(level: LogLevel, message: String) {
        var line = message + "\n"
        line.withUTF8 { _ = FileIO.write(2, UnsafeRawBufferPointer($0)) }
    }
}
