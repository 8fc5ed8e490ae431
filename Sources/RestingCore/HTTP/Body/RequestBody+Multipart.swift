@_exported import RestingMultipart

extension RequestBody {
    /// A `multipart/form-data` body, streamed part by part (files from disk) with its exact length, and
    /// replayable like every body. Send it with the form's `Content-Type`:
    ///
    /// ```swift
    /// let form = try MultipartFormDataEncoder().encode(upload)
    /// var request = HTTPRequest(method: .post, url: uploadURL, headers: ["Content-Type": form.contentType])
    /// request.body = .multipart(form)
    /// ```
    ///
    /// `.multipartFormData` endpoints do this for you.
    public static func multipart(_ form: MultipartFormData) -> RequestBody {
        .stream(contentLength: form.contentLength) { MultipartRequestBodyReader(form.makeReader()) }
    }
}

/// A ``/RestingMultipart/MultipartBodyReader`` as a ``RequestBodyReader``: the same bytes, errors as ``RestingError``.
private final class MultipartRequestBodyReader: RequestBodyReader {
    private let reader: MultipartBodyReader

    init(_ reader: MultipartBodyReader) { self.reader = reader }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(RestingError) -> Int {
        do {
            return try reader.read(into: buffer)
        } catch {
            throw .bodyUnreadable(reason: error.description)
        }
    }

    func close() { reader.close() }
}
