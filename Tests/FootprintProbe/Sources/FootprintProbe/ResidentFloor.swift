import CCurl

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What any Swift process pays for one GET decoded from JSON, before RestingKit's part: the Swift runtime, its
/// concurrency pool, FoundationEssentials' `JSONDecoder` and libcurl, loaded and used once, in this same binary (its
/// own pages load alike in both modes). `resident` less this is what RestingKit keeps resident; this less the C loop's
/// peak is what Swift keeps, which no library written in it can give back.
enum ResidentFloor {
    /// Resident KiB after one libcurl GET (a multi handle, as `CurlClient` drives) whose body `JSONDecoder` decodes,
    /// in a task; the handles kept, as a client would keep them.
    static func afterOneGet(_ url: URL) async throws -> Int {
        try await Task.detached { () async throws -> Int in
            let transfer = try Transfer(url)
            defer { transfer.close() }
            _ = try JSONDecoder().decode(Answer.self, from: Data(try transfer.run()))
            return ResidentMemory.residentKiB()
        }.value
    }

    /// One easy handle on one multi handle, run to its end.
    private final class Transfer {
        private let multi: UnsafeMutableRawPointer
        private let easy: UnsafeMutableRawPointer
        private var body: [UInt8] = []

        init(_ url: URL) throws {
            curl_global_init(Int(CURL_GLOBAL_DEFAULT))
            guard let multi = curl_multi_init(), let easy = curl_easy_init() else { throw FloorError.setUp }
            (self.multi, self.easy) = (multi, easy)
            let write: rk_data_callback = { bytes, size, count, userdata in
                guard let bytes, let userdata else { return 0 }
                let transfer = Unmanaged<Transfer>.fromOpaque(userdata).takeUnretainedValue()
                transfer.body.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: size * count))
                return size * count
            }
            _ = rk_easy_setopt_pointer(easy, CURLOPT_URL, url.absoluteString)
            _ = rk_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, write)
            _ = rk_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque())
            _ = rk_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
        }

        func run() throws -> [UInt8] {
            curl_multi_add_handle(multi, easy)
            var running: Int32 = 1
            while running > 0 {
                curl_multi_perform(multi, &running)
                if running > 0 { curl_multi_poll(multi, nil, 0, 1000, nil) }
            }
            var easy: UnsafeMutableRawPointer?
            var result = CURLE_OK
            guard rk_multi_info_read(multi, &easy, &result) != 0, result == CURLE_OK else { throw FloorError.transfer }
            return body
        }

        func close() {
            curl_multi_remove_handle(multi, easy)
            curl_easy_cleanup(easy)
            curl_multi_cleanup(multi)
        }
    }

    enum FloorError: Error { case setUp, transfer }
}
