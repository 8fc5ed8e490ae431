import Foundation
import RestingCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A ``RequestBody`` as the `InputStream` URLSession reads an upload from, following the rules that keep
/// FoundationNetworking on Linux fast and safe (`notes/urlsession-on-linux.md`):
///
/// - `hasBytesAvailable` stays `true` until `read` has returned 0 or -1: FoundationNetworking takes `false`
///   for the end of the body and would send a short body with a success status.
/// - `read` never blocks on anything but the local file (`read(2)` through the body's reader).
/// - A failure returns -1 and is kept in ``failure`` so the call reports the body's own error.
/// - One stream per attempt: URLSession asks for a fresh one through `needNewBodyStream`.
final class BodyInputStream: InputStream {
    private let reader: any RequestBodyReader
    private var ended = false
    private var status: Stream.Status = .notOpen
    private(set) var failure: RestingError?

    init(_ reader: any RequestBodyReader) {
        self.reader = reader
        super.init(data: Data())
    }

    deinit { reader.close() }

    override func open() { status = .open }

    override func close() {
        reader.close()
        status = .closed
    }

    override var streamStatus: Stream.Status { status }
    override var streamError: (any Error)? { failure }
    override var hasBytesAvailable: Bool { !ended }

    override func read(_ buffer: UnsafeMutablePointer<UInt8>, maxLength length: Int) -> Int {
        guard !ended else { return 0 }
        do {
            let count = try reader.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: length))
            if count == 0 {
                ended = true
                status = .atEnd
            }
            return count
        } catch {
            failure = error
            ended = true
            status = .error
            return -1
        }
    }

    override func getBuffer(
        _ buffer: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, length len: UnsafeMutablePointer<Int>
    ) -> Bool { false }
}
