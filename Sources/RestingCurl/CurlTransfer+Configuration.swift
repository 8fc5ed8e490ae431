import CCurl
import RestingConnections
import RestingCore

// Setting an easy handle up for one transfer, from its request: on the driver thread, before the handle is added
// to the multi handle.
extension CurlTransfer {
    /// Sets this transfer's options on `handle`, which already carries the client-wide ones (see
    /// `EasyHandle.make(for:)`). `userdata` is the transfer's retained pointer.
    func configure(_ handle: EasyHandle, userdata: UnsafeMutableRawPointer) throws(RestingError) {
        self.handle = handle
        let url = request.url.absoluteString
        try handle.set(CURLOPT_URL, url, "URL")
        for option in [
            CURLOPT_PRIVATE, CURLOPT_WRITEDATA, CURLOPT_HEADERDATA, CURLOPT_XFERINFODATA, CURLOPT_READDATA,
            CURLOPT_SEEKDATA,
        ] {
            try handle.set(option, pointer: userdata, "callback data")
        }
        try configureMethodAndBody(handle)
        try configureWireView(handle, userdata: userdata)
        try configureTrailers(handle, userdata: userdata)
        let route = request.attributes.proxy
        if route != nil || handle.proxyRerouted { try handle.reroute(route) }
        // A body with trailers is sent chunked, which only HTTP/1.1 has (CurlClient refuses it where HTTP/1.1 is not
        // allowed).
        let version = request.body.trailers != nil ? .http1_1 : request.attributes.httpVersion
        if version != nil || handle.httpVersionChanged {
            let asked = version ?? handle.clientHTTPVersion
            try handle.set(CURLOPT_HTTP_VERSION, Libcurl.loaded.curlValue(asked), "HTTP version")
            handle.httpVersionChanged = asked != handle.clientHTTPVersion
        }
        try handle.connect(connection)
        try configureHeaders(handle)
        // 0 means no limit; a reused handle must not keep the previous request's. A stream's timeout bounds
        // its head only, which `CurlClient` enforces.
        let timeout =
            streaming != nil ? 0 : request.timeout.map(EasyHandle.timeoutMilliseconds) ?? handle.defaultTimeout
        try handle.set(CURLOPT_TIMEOUT_MS, timeout, "timeout")
        let liftsLimit = sink != nil || streaming != nil
        if liftsLimit != handle.responseSizeLimitLifted {
            try handle.set(
                CURLOPT_MAXFILESIZE_LARGE, offset: liftsLimit ? 0 : handle.maximumResponseSize, "maximum response size")
            handle.responseSizeLimitLifted = liftsLimit
        }
        // Waiting for a connection to multiplex on only makes sense where HTTP/2 can be negotiated.
        try handle.set(
            CURLOPT_PIPEWAIT, url.httpSchemeLength == 8 || handle.multiplexesPlainHTTP ? 1 : 0, "multiplexing")
    }

    private func configureMethodAndBody(_ handle: EasyHandle) throws(RestingError) {
        let hasBody = !request.body.isEmpty
        if hasBody { upload = UploadSource(try request.body.makeReader()) }
        // Back to a plain GET first: a reused handle keeps the previous request's method options.
        try handle.set(CURLOPT_HTTPGET, 1, "GET")
        try handle.set(CURLOPT_CUSTOMREQUEST, pointer: nil, "method")
        // Unknown lengths (-1) are sent chunked.
        let length = uploadLength ?? -1
        switch request.method {
        case .get:
            break
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

    /// A body produced while it is sent may outlast its response: such a transfer watches its response's framing on
    /// the wire (libcurl's debug callback, which sees the bytes before the chunked coding is undone).
    private func configureWireView(_ handle: EasyHandle, userdata: UnsafeMutableRawPointer) throws(RestingError) {
        let watches = upload.isSequence
        if watches != handle.showsWireBody {
            try handle.set(CURLOPT_VERBOSE, watches ? 1 : 0, "wire view")
            handle.showsWireBody = watches
        }
        if watches { try handle.set(CURLOPT_DEBUGDATA, pointer: userdata, "callback data") }
    }

    /// An upload with trailers (always chunked) gets them from the trailer callback once its body has been read.
    /// Its handle is not reused (see `CurlDriver.release`), so no other transfer finds the callback set.
    private func configureTrailers(_ handle: EasyHandle, userdata: UnsafeMutableRawPointer) throws(RestingError) {
        guard request.body.trailers != nil else { return }
        handle.sendsTrailers = true
        // Its connection is HTTP/1.1, which the origin's next calls would reuse rather than open an HTTP/2 one. (The
        // handle is never reused either: the option stays with it.)
        try handle.set(CURLOPT_FORBID_REUSE, 1, "no reuse")
        try handle.check(rk_easy_setopt_trailer_callback(handle.raw, trailerCallback), "trailers")
        try handle.set(CURLOPT_TRAILERDATA, pointer: userdata, "callback data")
    }

    private func configureHeaders(_ handle: EasyHandle) throws(RestingError) {
        let waitsForContinue = waitsForContinue(handle.expectContinue)
        if let source = handle.headerListSource, source.method == request.method, source.headers == request.headers,
            source.waitsForContinue == waitsForContinue
        {
            return
        }
        var list: UnsafeMutablePointer<curl_slist>?
        func append(_ line: String) { list = line.withCString { curl_slist_append(list, $0) } }
        // libcurl frames the body itself; a caller's framing headers could only contradict it.
        for field in request.headers where !HTTPHeaderFields.isFraming(field.name) {
            // "Name;" is libcurl's way of sending a header with an empty value.
            append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        // An `Expect: 100-continue` round trip only where the policy asks for it (libcurl would add one to every
        // upload past 1 MiB), and no form Content-Type invented for a POST.
        append(waitsForContinue ? "Expect: 100-continue" : "Expect:")
        if request.method == .post, !request.headers.contains("Content-Type") { append("Content-Type:") }
        try handle.replaceHeaderList(with: list, from: (request.headers, request.method, waitsForContinue))
    }

    /// Whether this request's body waits for the server's `100 Continue` under `policy`: a body of at least its
    /// threshold, or of unknown length.
    private func waitsForContinue(_ policy: CurlConfiguration.ExpectContinue?) -> Bool {
        guard let policy, !request.body.isEmpty, request.method != .get, request.method != .head else { return false }
        return uploadLength.map { $0 >= policy.threshold } ?? true
    }
}
