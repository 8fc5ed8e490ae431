import CCurl
import RestingCore

/// One libcurl easy handle and its error buffer, reused from transfer to transfer by the driver thread.
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>

    init?() {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        reset()
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
    }

    /// Back to libcurl's defaults (live connections, DNS and TLS session caches are kept), ready for reuse.
    func reset() {
        curl_easy_reset(raw)
        errorBuffer[0] = 0
        _ = rk_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    /// libcurl's own explanation of the last failure, if it wrote one.
    var errorDetail: String { String(cString: errorBuffer) }

    func set(_ option: CURLoption, _ value: Int, _ what: @autoclosure () -> String) throws(RestingError) {
        try check(rk_easy_setopt_long(raw, option, value), what())
    }

    func set(_ option: CURLoption, offset value: Int64, _ what: @autoclosure () -> String) throws(RestingError) {
        try check(rk_easy_setopt_offset(raw, option, curl_off_t(value)), what())
    }

    /// Sets a string option; libcurl copies it.
    func set(_ option: CURLoption, _ value: String, _ what: @autoclosure () -> String) throws(RestingError) {
        try check(value.withCString { rk_easy_setopt_pointer(raw, option, $0) }, what())
    }

    func set(_ option: CURLoption, pointer: UnsafeRawPointer?, _ what: @autoclosure () -> String) throws(RestingError) {
        try check(rk_easy_setopt_pointer(raw, option, pointer), what())
    }

    func set(_ option: CURLoption, blob: [UInt8], _ what: @autoclosure () -> String) throws(RestingError) {
        try check(blob.withUnsafeBytes { rk_easy_setopt_blob(raw, option, $0.baseAddress, $0.count) }, what())
    }

    func check(_ code: CURLcode, _ what: String) throws(RestingError) {
        guard code == CURLE_OK else { throw CurlError.restingError(code, detail: what) }
    }

    func long(_ info: CURLINFO) -> Int? {
        var value = 0
        return rk_easy_getinfo_long(raw, info, &value) == CURLE_OK ? value : nil
    }

    func offset(_ info: CURLINFO) -> Int64? {
        var value: curl_off_t = 0
        return rk_easy_getinfo_offset(raw, info, &value) == CURLE_OK ? Int64(value) : nil
    }
}
