import CCurl
import Foundation
import RestingCore

/// One exchange on an easy handle: sets the handle up from an ``HTTPRequest``, receives libcurl's callbacks,
/// and turns the outcome into a response.
///
/// After submission every property is touched on the driver thread only (libcurl calls back on the thread
/// that drives it); the submission queue's lock hands it over.
final class CurlTransfer: @unchecked Sendable {
    let request: HTTPRequest
    private let progress: ProgressHandler
    private let maximumResponseSize: Int64
    private let uploadLength: Int64?

    var lifecycle = TransferLifecycle()
    var continuation: CheckedContinuation<HTTPDataResponse, any Error>?
    private(set) var handle: EasyHandle?

    private var reader: (any RequestBodyReader)?
    private var headerList: UnsafeMutablePointer<curl_slist>?
    private var headers = HTTPHeaders()
    private var headerBytes = 0
    private var body = Data()
    /// A failure a callback decided on (body unreadable, response too large), which wins over the CURLcode.
    private var failure: RestingError?
    private var lastProgressReport = ContinuousClock.now - .seconds(1)
    private var lastReported: (downloaded: Int64, uploaded: Int64) = (0, 0)

    /// All the response header bytes a server may send before the transfer fails.
    static let maximumHeaderBytes = 256 * 1024
    static let progressInterval = Duration.milliseconds(50)

    /// The client's count of live transfers and double resumes.
    let census: TransferCensus

    init(request: HTTPRequest, progress: @escaping ProgressHandler, maximumResponseSize: Int64, census: TransferCensus) {
        census.record { $0.live += 1 }
        self.census = census
        self.request = request
        self.progress = progress
        self.maximumResponseSize = maximumResponseSize
        uploadLength = request.body.isEmpty ? 0 : request.body.contentLength
    }

    deinit {
        releaseRequestResources()
        census.record { $0.live -= 1 }
    }

    // MARK: Setting up the handle

    /// Configures `handle` for this transfer. `userdata` is the transfer's retained pointer.
    func configure(
        _ handle: EasyHandle, configuration: CurlClient.Configuration, userdata: UnsafeMutableRawPointer
    ) throws(RestingError) {
        self.handle = handle
        try handle.set(CURLOPT_URL, request.url.absoluteString, "URL")
        try handle.set(CURLOPT_PRIVATE, pointer: userdata, "private data")
        try handle.set(CURLOPT_NOSIGNAL, 1, "no signals")
        try configureMethodAndBody(handle, userdata: userdata)
        try configureHeaders(handle, configuration: configuration)
        try configureCallbacks(handle, userdata: userdata)
        try configureTimeouts(handle, configuration: configuration)
        if configuration.automaticDecompression { try handle.set(CURLOPT_ACCEPT_ENCODING, "", "decompression") }
        try handle.set(CURLOPT_MAXFILESIZE_LARGE, offset: maximumResponseSize, "maximum response size")
        try handle.set(CURLOPT_HTTP_VERSION, configuration.httpVersion.curlValue, "HTTP version")
        // Waiting for a connection to multiplex on only makes sense where HTTP/2 can be negotiated.
        if request.url.scheme == "https" || configuration.httpVersion == .http2PriorKnowledge {
            try handle.set(CURLOPT_PIPEWAIT, 1, "multiplexing")
        }
        try configureProxy(handle, configuration.proxy)
        if let path = configuration.unixSocketPath { try handle.set(CURLOPT_UNIX_SOCKET_PATH, path, "Unix socket") }
        try configureTLS(handle, configuration.tls)
    }

    private func configureMethodAndBody(_ handle: EasyHandle, userdata: UnsafeMutableRawPointer) throws(RestingError) {
        let hasBody = !request.body.isEmpty
        if hasBody {
            reader = try request.body.makeReader()
            try handle.set(CURLOPT_READDATA, pointer: userdata, "body reader")
            try handle.check(rk_easy_setopt_data_callback(handle.raw, CURLOPT_READFUNCTION, readCallback), "body reader")
            try handle.set(CURLOPT_SEEKDATA, pointer: userdata, "body rewind")
            try handle.check(rk_easy_setopt_seek_callback(handle.raw, seekCallback), "body rewind")
        }
        // Unknown lengths (-1) are sent chunked.
        let length = uploadLength ?? -1
        switch request.method {
        case .get:
            try handle.set(CURLOPT_HTTPGET, 1, "GET")
        case .head:
            try handle.set(CURLOPT_NOBODY, 1, "HEAD")
        case .post:
            try handle.set(CURLOPT_POST, 1, "POST")
            try handle.set(CURLOPT_POSTFIELDSIZE_LARGE, offset: length, "body length")
        default:
            if hasBody || request.method == .put || request.method == .patch {
                try handle.set(CURLOPT_UPLOAD, 1, "upload")
                try handle.set(CURLOPT_INFILESIZE_LARGE, offset: length, "body length")
            }
            if request.method != .put { try handle.set(CURLOPT_CUSTOMREQUEST, request.method.rawValue, "method") }
        }
    }

    private func configureHeaders(_ handle: EasyHandle, configuration: CurlClient.Configuration) throws(RestingError) {
        // libcurl frames the body itself; a caller's framing headers could only contradict it.
        let framing = ["Content-Length", "Transfer-Encoding", "Expect"]
        for field in request.headers where !framing.contains(where: field.name.caseInsensitiveEquals) {
            // "Name;" is libcurl's way of sending a header with an empty value.
            append(header: field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        // No `Expect: 100-continue` round trip before uploads, and no form Content-Type invented for a POST.
        append(header: "Expect:")
        if request.method == .post, !request.headers.contains("Content-Type") { append(header: "Content-Type:") }
        if let userAgent = configuration.userAgent, !request.headers.contains("User-Agent") {
            try handle.set(CURLOPT_USERAGENT, userAgent, "user agent")
        }
        try handle.set(CURLOPT_HTTPHEADER, pointer: headerList, "headers")
    }

    private func append(header: String) {
        headerList = header.withCString { curl_slist_append(headerList, $0) }
    }

    private func configureCallbacks(_ handle: EasyHandle, userdata: UnsafeMutableRawPointer) throws(RestingError) {
        try handle.set(CURLOPT_WRITEDATA, pointer: userdata, "body sink")
        try handle.check(rk_easy_setopt_data_callback(handle.raw, CURLOPT_WRITEFUNCTION, writeCallback), "body sink")
        try handle.set(CURLOPT_HEADERDATA, pointer: userdata, "header sink")
        try handle.check(rk_easy_setopt_data_callback(handle.raw, CURLOPT_HEADERFUNCTION, headerCallback), "header sink")
        try handle.set(CURLOPT_XFERINFODATA, pointer: userdata, "progress")
        try handle.check(rk_easy_setopt_progress_callback(handle.raw, progressCallback), "progress")
        try handle.set(CURLOPT_NOPROGRESS, 0, "progress")
    }

    private func configureTimeouts(_ handle: EasyHandle, configuration: CurlClient.Configuration) throws(RestingError) {
        try handle.set(CURLOPT_CONNECTTIMEOUT_MS, configuration.connectTimeout.milliseconds, "connect timeout")
        if let total = request.timeout ?? configuration.totalTimeout {
            try handle.set(CURLOPT_TIMEOUT_MS, max(1, total.milliseconds), "timeout")
        }
        if let idle = configuration.idleTimeout {
            try handle.set(CURLOPT_LOW_SPEED_LIMIT, 1, "idle timeout")
            try handle.set(CURLOPT_LOW_SPEED_TIME, max(1, (idle.milliseconds + 999) / 1000), "idle timeout")
        }
    }

    private func configureProxy(_ handle: EasyHandle, _ proxy: CurlClient.Proxy) throws(RestingError) {
        switch proxy {
        case .none:
            try handle.set(CURLOPT_PROXY, "", "proxy")
        case .environment:
            break
        case .url(let url, let noProxy):
            try handle.set(CURLOPT_PROXY, url, "proxy")
            if !noProxy.isEmpty { try handle.set(CURLOPT_NOPROXY, noProxy.joined(separator: ","), "no-proxy list") }
        }
    }

    private func configureTLS(_ handle: EasyHandle, _ tls: CurlClient.TLS) throws(RestingError) {
        try handle.set(CURLOPT_SSL_VERIFYPEER, tls.verifiesPeer ? 1 : 0, "peer verification")
        try handle.set(CURLOPT_SSL_VERIFYHOST, tls.verifiesPeer ? 2 : 0, "host verification")
        try handle.set(CURLOPT_SSLVERSION, tls.minimumVersion.curlValue, "minimum TLS version")
        if let caFile = tls.caFile { try handle.set(CURLOPT_CAINFO, caFile, "CA file") }
        if let caPEM = tls.caPEM { try handle.set(CURLOPT_CAINFO_BLOB, blob: Array(caPEM), "in-memory CA") }
        if !tls.pinnedPublicKeys.isEmpty {
            try handle.set(CURLOPT_PINNEDPUBLICKEY, tls.pinnedPublicKeys.joined(separator: ";"), "public key pinning")
        }
        switch tls.clientCertificate {
        case .none:
            break
        case .pem(let certificateFile, let keyFile, let password):
            try handle.set(CURLOPT_SSLCERTTYPE, "PEM", "client certificate")
            try handle.set(CURLOPT_SSLCERT, certificateFile, "client certificate")
            try handle.set(CURLOPT_SSLKEY, keyFile, "client key")
            if let password { try handle.set(CURLOPT_KEYPASSWD, password, "client key password") }
        case .pkcs12(let file, let password):
            try handle.set(CURLOPT_SSLCERTTYPE, "P12", "client certificate")
            try handle.set(CURLOPT_SSLCERT, file, "client certificate")
            if let password { try handle.set(CURLOPT_KEYPASSWD, password, "client certificate password") }
        }
    }

    // MARK: libcurl callbacks (driver thread)

    fileprivate func receiveBody(_ bytes: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        guard Int64(body.count + count) <= maximumResponseSize else {
            failure = .responseTooLarge(limit: maximumResponseSize)
            return 0
        }
        body.append(UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
        return count
    }

    fileprivate func receiveHeader(_ bytes: UnsafeMutablePointer<CChar>, _ count: Int) -> Int {
        headerBytes += count
        guard headerBytes <= Self.maximumHeaderBytes else {
            failure = .transportFailed(
                TransportError(kind: .malformedResponse, code: 0, domain: CurlError.domain,
                               message: "response headers larger than \(Self.maximumHeaderBytes) bytes"))
            return 0
        }
        let line = UnsafeBufferPointer(start: UnsafeRawPointer(bytes).assumingMemoryBound(to: UInt8.self), count: count)
        if line.starts(with: "HTTP/".utf8) {
            // A new response begins (after a 100 Continue, say): forget the previous one's headers.
            headers = HTTPHeaders()
        } else if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            let name = String(decoding: HeaderLine.trimmed(line[..<colon]), as: UTF8.self)
            let value = String(decoding: HeaderLine.trimmed(line[(colon + 1)...]), as: UTF8.self)
            headers.add(name: name, value: value)
            if name.caseInsensitiveEquals("Content-Length"), let length = Int64(value), length > 0 {
                body.reserveCapacity(Int(min(length, maximumResponseSize, 16 * 1024 * 1024)))
            }
        }
        return count
    }

    fileprivate func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let reader else { return 0 }
        do {
            return try reader.read(into: buffer)
        } catch {
            failure = error
            return Int(CURL_READFUNC_ABORT)
        }
    }

    fileprivate func rewindBody() -> Int32 {
        reader?.close()
        do {
            reader = try request.body.makeReader()
            return Int32(CURL_SEEKFUNC_OK)
        } catch {
            failure = error
            return Int32(CURL_SEEKFUNC_FAIL)
        }
    }

    fileprivate func reportProgress(downloaded: Int64, expected: Int64, uploaded: Int64) {
        // libcurl calls this often, also when nothing moved; only a change is worth reading the clock for.
        guard downloaded != lastReported.downloaded || uploaded != lastReported.uploaded else { return }
        lastReported = (downloaded, uploaded)
        let now = ContinuousClock.now
        guard now - lastProgressReport >= Self.progressInterval else { return }
        lastProgressReport = now
        progress(TransferProgress(bytesSent: uploaded, totalBytesToSend: uploadLength, bytesReceived: downloaded,
                                  totalBytesToReceive: expected > 0 ? expected : nil))
    }

    // MARK: Outcome

    /// The response, or the failure, once libcurl reports the transfer done with `code`.
    func outcome(_ code: CURLcode) -> Result<HTTPDataResponse, RestingError> {
        guard let handle else { return .failure(.cancelled) }
        if let failure { return .failure(failure) }
        if code == CURLE_FILESIZE_EXCEEDED { return .failure(.responseTooLarge(limit: maximumResponseSize)) }
        guard code == CURLE_OK else { return .failure(CurlError.restingError(code, detail: handle.errorDetail)) }
        let metrics = TransferMetrics(
            nameLookup: handle.offset(CURLINFO_NAMELOOKUP_TIME_T).map(Duration.microseconds),
            connect: handle.offset(CURLINFO_CONNECT_TIME_T).map(Duration.microseconds),
            tlsHandshake: tlsHandshake(handle),
            timeToFirstByte: handle.offset(CURLINFO_STARTTRANSFER_TIME_T).map(Duration.microseconds),
            total: handle.offset(CURLINFO_TOTAL_TIME_T).map(Duration.microseconds),
            bytesSent: handle.offset(CURLINFO_SIZE_UPLOAD_T),
            bytesReceived: Int64(body.count))
        let sent = metrics.bytesSent ?? 0
        progress(TransferProgress(bytesSent: sent, totalBytesToSend: uploadLength, bytesReceived: Int64(body.count),
                                  totalBytesToReceive: Int64(body.count)))
        return .success(
            HTTPDataResponse(
                // libcurl never follows redirects here (RedirectFollower does), so the URL is the request's.
                status: handle.long(CURLINFO_RESPONSE_CODE) ?? 0, headers: headers, body: body, url: request.url,
                metrics: metrics))
    }

    private func tlsHandshake(_ handle: EasyHandle) -> Duration? {
        guard let appConnect = handle.offset(CURLINFO_APPCONNECT_TIME_T), appConnect > 0,
            let connect = handle.offset(CURLINFO_CONNECT_TIME_T)
        else { return nil }
        return .microseconds(appConnect - connect)
    }

    /// Gives the handle back (for reuse) and frees what the request held.
    func detachHandle() -> EasyHandle? {
        defer { handle = nil }
        releaseRequestResources()
        return handle
    }

    private func releaseRequestResources() {
        reader?.close()
        reader = nil
        if let headerList { curl_slist_free_all(headerList) }
        headerList = nil
    }
}

/// Transfers alive right now, and continuations resumed twice (must stay 0), per client: what the leak and
/// cancellation stress tests assert.
package final class TransferCensus: Sendable {
    package struct Counts: Sendable, Equatable {
        package var live = 0
        package var doubleResumes = 0
    }

    private let counts = Locked(Counts())

    func record(_ change: (inout Counts) -> Void) { counts.withLock(change) }

    package var current: Counts { counts.withLock { $0 } }
}

enum HeaderLine {
    /// `bytes` without leading and trailing spaces, tabs, CR and LF.
    static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        guard let first = bytes.firstIndex(where: { !isSpace($0) }), let last = bytes.lastIndex(where: { !isSpace($0) }) else {
            return bytes[bytes.startIndex..<bytes.startIndex]
        }
        return bytes[first...last]
    }
}

private func transfer(_ userdata: UnsafeMutableRawPointer?) -> CurlTransfer? {
    userdata.map { Unmanaged<CurlTransfer>.fromOpaque($0).takeUnretainedValue() }
}

private let writeCallback: rk_data_callback = { bytes, size, count, userdata in
    guard let bytes, let transfer = transfer(userdata) else { return 0 }
    return transfer.receiveBody(bytes, size * count)
}

private let headerCallback: rk_data_callback = { bytes, size, count, userdata in
    guard let bytes, let transfer = transfer(userdata) else { return 0 }
    return transfer.receiveHeader(bytes, size * count)
}

private let readCallback: rk_data_callback = { bytes, size, count, userdata in
    guard let bytes, let transfer = transfer(userdata) else { return Int(CURL_READFUNC_ABORT) }
    return transfer.readBody(into: UnsafeMutableRawBufferPointer(start: bytes, count: size * count))
}

private let seekCallback: rk_seek_callback = { userdata, offset, origin in
    guard offset == 0, origin == SEEK_SET, let transfer = transfer(userdata) else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    return transfer.rewindBody()
}

private let progressCallback: rk_progress_callback = { userdata, downloadTotal, downloaded, _, uploaded in
    transfer(userdata)?.reportProgress(downloaded: Int64(downloaded), expected: Int64(downloadTotal), uploaded: Int64(uploaded))
    return 0
}

extension Duration {
    var milliseconds: Int {
        Int(components.seconds) * 1000 + Int(components.attoseconds / 1_000_000_000_000_000)
    }
}

extension CurlClient.HTTPVersion {
    var curlValue: Int {
        switch self {
        case .http1_1: Int(CURL_HTTP_VERSION_1_1)
        case .http2OverTLS: Int(CURL_HTTP_VERSION_2TLS)
        case .http2PriorKnowledge: Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE)
        }
    }
}

extension CurlClient.MinimumVersion {
    var curlValue: Int {
        switch self {
        case .tls1_2: Int(CURL_SSLVERSION_TLSv1_2)
        case .tls1_3: Int(CURL_SSLVERSION_TLSv1_3)
        }
    }
}
