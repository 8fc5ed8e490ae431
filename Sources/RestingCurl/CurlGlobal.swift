import CCurl
import Dispatch
import RestingCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `curl_global_init`, once per process, before the first handle. Never cleaned up: other libraries in the
/// process (FoundationNetworking) may still use libcurl at exit.
enum CurlGlobal {
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_ALL)) == CURLE_OK

    static func initialize() { _ = initialized }
}
