import CCurl
import RestingConnections
import RestingCore

/// One libcurl easy handle and its error buffer, reused from transfer to transfer by the driver thread.
/// It keeps the client-wide options for its whole life (see `make(for:)`).
final class EasyHandle {
    let raw: UnsafeMutableRawPointer
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// `CURLOPT_TIMEOUT_MS` for requests without a timeout of their own (0: none).
    let defaultTimeout: Int
    /// Whether plain-HTTP requests may wait to share a connection (HTTP/2 with prior knowledge).
    let multiplexesPlainHTTP: Bool
    /// The client's response size limit, which downloads to a file lift (it guards memory, not disks).
    let maximumResponseSize: Int64
    /// Whether the last transfer lifted the limit, so the next one must restore it.
    var responseSizeLimitLifted = false
    /// Whether libcurl shows this handle's transfers the body bytes as they arrive (see ``ResponseFraming``).
    var showsWireBody = false
    /// The client's proxy, which a transfer routed elsewhere (``/RestingConnections/ProxyRoute``) leaves to be restored.
    let clientProxy: CurlConfiguration.Proxy
    /// Whether the last transfer went through a proxy of its own, so the next one must restore the client's.
    var proxyRerouted = false
    /// The client's HTTP version, which a request asking for its own (``/RestingConnections/HTTPVersion``) leaves to be
    /// restored.
    let clientHTTPVersion: HTTPVersion
    /// The HTTP version the last transfer asked for, when it was not the client's.
    var httpVersionChanged = false
    /// Whether the last transfer was told to open a connection of its own, so the next one must be told otherwise.
    var opensConnection = false
    /// The client's connect timeout, in milliseconds, which a transfer connecting within less leaves to be restored.
    let clientConnectTimeout: Int
    /// Whether the last transfer connected within less than the client's connect timeout.
    var connectTimeoutShortened = false
    /// Whether the trailer callback is set, for an upload with trailers: such a handle is never reused.
    var sendsTrailers = false
    /// The request headers libcurl sends, kept from transfer to transfer while they stay the same — the usual
    /// case, one API with the same headers on every call — since libcurl copies each line into two allocations.
    private var headerList: UnsafeMutablePointer<curl_slist>?
    /// What ``headerList`` was made from.
    private(set) var headerListSource: (headers: HTTPHeaderFields, method: RequestMethod, waitsForContinue: Bool)?
    /// Which bodies wait for the server's `100 Continue`.
    let expectContinue: CurlConfiguration.ExpectContinue?
    /// The lists of client-wide options (host overrides, connection routes), which libcurl reads but does not copy.
    private var optionLists: [UnsafeMutablePointer<curl_slist>] = []

    init?(configuration: CurlConfiguration) {
        guard let raw = curl_easy_init() else { return nil }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer[0] = 0
        defaultTimeout = configuration.totalTimeout.map(Self.timeoutMilliseconds) ?? 0
        multiplexesPlainHTTP = configuration.httpVersion == .http2PriorKnowledge
        maximumResponseSize = configuration.maximumResponseSize
        expectContinue = configuration.expectContinue
        clientProxy = configuration.proxy
        clientHTTPVersion = configuration.httpVersion
        clientConnectTimeout = Self.timeoutMilliseconds(configuration.connectTimeout)
        _ = rk_easy_setopt_pointer(raw, CURLOPT_ERRORBUFFER, errorBuffer)
    }

    deinit {
        curl_easy_cleanup(raw)
        errorBuffer.deallocate()
        curl_slist_free_all(headerList)
        for list in optionLists { curl_slist_free_all(list) }
    }

    /// Ready for the next transfer: the last one's error text is forgotten, its options stay.
    func prepareForReuse() {
        errorBuffer[0] = 0
    }

    /// Sends `list`, made from `headers` for a `method` request, from now on; frees the previous list.
    func replaceHeaderList(
        with list: UnsafeMutablePointer<curl_slist>?,
        from source: (headers: HTTPHeaderFields, method: RequestMethod, waitsForContinue: Bool)
    ) throws(RestingError) {
        do {
            try set(CURLOPT_HTTPHEADER, pointer: list, "headers")
        } catch {
            curl_slist_free_all(list)
            throw error
        }
        curl_slist_free_all(headerList)
        headerList = list
        headerListSource = source
    }

    /// Sets a list option from `lines`, kept for the handle's life; nothing for no lines.
    func set(_ option: CURLoption, lines: [String], _ what: @autoclosure () -> String) throws(RestingError) {
        var list: UnsafeMutablePointer<curl_slist>?
        for line in lines {
            guard let longer = curl_slist_append(list, line) else {
                curl_slist_free_all(list)
                throw CurlError.restingError(CURLE_OUT_OF_MEMORY, detail: what())
            }
            list = longer
        }
        guard let list else { return }
        optionLists.append(list)
        try set(option, pointer: list, what())
    }

    /// libcurl's own explanation of the last failure, if it wrote one — with the user information of any URL in it
    /// redacted: libcurl quotes a proxy URL it refuses whole (`Unsupported proxy scheme for 'htp://user:pass@…'`),
    /// and this text reaches errors, logs, events and spans.
    var errorDetail: String { Self.redactingUserInfo(String(cString: errorBuffer)) }

    /// `text` with what stands before each `@` of a URL's authority — a user and a password — replaced by
    /// ``/RestingCore/RedactionPolicy/placeholder``: from the scheme's `://` (user information holds no `/`, but may
    /// hold quotes and parentheses), or, in a URL without a scheme, from the word's start.
    static func redactingUserInfo(_ text: String) -> String {
        guard text.contains("@") else { return text }
        var redacted = ""
        for (index, part) in text.split(separator: "@", omittingEmptySubsequences: false).enumerated() {
            guard index > 0 else {
                redacted = String(part)
                continue
            }
            var start = redacted.lastIndex(of: " ").map { redacted.index(after: $0) } ?? redacted.startIndex
            if let scheme = redacted.ranges(of: "://").last,
                !redacted[scheme.upperBound...].contains("/")
            {
                start = scheme.upperBound
            } else {
                while start < redacted.endIndex, "'\"(".contains(redacted[start]) {
                    start = redacted.index(after: start)
                }
            }
            redacted.replaceSubrange(start..., with: RedactionPolicy.placeholder)
            redacted += "@" + part
        }
        return redacted
    }

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
