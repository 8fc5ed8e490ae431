import CCurl
import RestingCore

// The request body on its way to libcurl: read, paused while an async sequence's producer has nothing, rewound for a
// resend, and followed by its trailer fields. On the driver thread, from libcurl's read, seek and trailer callbacks.
extension CurlTransfer {
    func readBody(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        switch upload {
        case .none:
            return 0
        case .blocking(let reader, let bytesRead):
            do {
                let count = try reader.read(into: buffer)
                upload = .blocking(reader, bytesRead: bytesRead + Int64(count))
                return count
            } catch {
                failure = error
                return Int(CURL_READFUNC_ABORT)
            }
        case .sequence(let reader, let bytesRead, _):
            return readSequence(reader, bytesRead: bytesRead, into: buffer)
        }
    }

    /// Never blocks the driver: with nothing produced yet the upload pauses until the producer's wake-up asks the
    /// driver to resume it.
    private func readSequence(
        _ reader: SequenceBodyReader, bytesRead: Int64, into buffer: UnsafeMutableRawBufferPointer
    ) -> Int {
        switch reader.poll(into: buffer, orWhenReadable: { [weak self, driver] in self.map(driver.resumeUpload) }) {
        case .bytes(let count):
            upload = .sequence(reader, bytesRead: bytesRead + Int64(count), isPaused: false)
            return count
        case .end:
            return takeTrailers() ? 0 : Int(CURL_READFUNC_ABORT)
        case .pending:
            upload = .sequence(reader, bytesRead: bytesRead, isPaused: true)
            return Int(CURL_READFUNC_PAUSE)
        case .failed(let error):
            failure = error
            return Int(CURL_READFUNC_ABORT)
        }
    }

    /// Asks the body for its trailer fields as its end is read, and checks them: false (the transfer then aborted
    /// before the body's last chunk goes out, so the server never sees a whole request) for a field a trailer
    /// section must not carry. Checked here rather than in libcurl's trailer callback, whose abort path frees its
    /// buffer twice in some libcurl versions.
    private func takeTrailers() -> Bool {
        guard let make = request.body.trailers else { return true }
        let fields = make()
        do throws(RestingError) {
            try fields.validateAsTrailers()
        } catch {
            failure = error
            return false
        }
        trailers = fields
        return true
    }

    /// Appends the request body's trailer fields, checked as its end was read, to `list`.
    func appendTrailers(to list: UnsafeMutablePointer<UnsafeMutablePointer<curl_slist>?>) -> Int32 {
        guard let trailers else { return Int32(CURL_TRAILERFUNC_OK) }
        for field in trailers {
            guard let longer = curl_slist_append(list.pointee, "\(field.name): \(field.value)") else {
                // Never CURL_TRAILERFUNC_ABORT (see `takeTrailers`): the call fails once the transfer ends.
                failure = .bodyUnreadable(reason: "no memory for the trailer fields")
                return Int32(CURL_TRAILERFUNC_OK)
            }
            list.pointee = longer
        }
        return Int32(CURL_TRAILERFUNC_OK)
    }

    /// libcurl rewinds to resend a body (a reused connection found dead, say). A reader that has handed nothing out
    /// is still at the start — so a single-pass body survives that — and any other is made anew, which a single-pass
    /// body refuses with ``/RestingCore/RestingError/requestBodyNotReplayable``.
    func rewindBody() -> Int32 {
        guard upload.bytesRead > 0 else { return Int32(CURL_SEEKFUNC_OK) }
        upload.close()
        do {
            upload = UploadSource(try request.body.makeReader())
            return Int32(CURL_SEEKFUNC_OK)
        } catch {
            failure = error
            return Int32(CURL_SEEKFUNC_FAIL)
        }
    }
}
