import CCurl
import Foundation

/// The C loop's work plus `JSONDecoder` and nothing else: a synchronous libcurl multi loop in Swift, with the C
/// loop's options, that decodes every response. No pipeline that decodes JSON can beat it, so its ratio to the
/// C loop is the ceiling for the pipeline rows.
enum DecodingFloor {
    /// One handle's response body, appended to by libcurl's write callback.
    final class Body {
        var bytes: [UInt8] = []
    }

    static func run(url: URL, concurrency: Int, total: Int) throws {
        guard let multi = curl_multi_init() else { throw FloorError("curl_multi_init failed") }
        defer { curl_multi_cleanup(multi) }
        let write: rk_data_callback = { bytes, size, count, userdata in
            guard let bytes, let userdata else { return 0 }
            let body = Unmanaged<Body>.fromOpaque(userdata).takeUnretainedValue()
            body.bytes.append(contentsOf: UnsafeRawBufferPointer(start: bytes, count: size * count))
            return size * count
        }
        var bodies: [UnsafeMutableRawPointer: Body] = [:]
        for _ in 0..<min(concurrency, total) {
            guard let easy = curl_easy_init() else { throw FloorError("curl_easy_init failed") }
            let body = Body()
            bodies[easy] = body
            _ = rk_easy_setopt_pointer(easy, CURLOPT_URL, url.absoluteString)
            _ = rk_easy_setopt_data_callback(easy, CURLOPT_WRITEFUNCTION, write)
            _ = rk_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, Unmanaged.passUnretained(body).toOpaque())
            _ = rk_easy_setopt_long(easy, CURLOPT_NOSIGNAL, 1)
            curl_multi_add_handle(multi, easy)
        }
        defer { for easy in bodies.keys { curl_easy_cleanup(easy) } }
        let decoder = JSONDecoder()
        let usage = Usage.now
        let start = ContinuousClock.now
        var started = bodies.count
        var finished = 0
        var running: Int32 = 0
        while finished < total {
            curl_multi_perform(multi, &running)
            var easy: UnsafeMutableRawPointer?
            var result = CURLE_OK
            while rk_multi_info_read(multi, &easy, &result) != 0 {
                guard let easy, let body = bodies[easy] else { continue }
                guard result == CURLE_OK else { throw FloorError(String(cString: curl_easy_strerror(result))) }
                _ = try decoder.decode(Post.self, from: Data(body.bytes))
                body.bytes.removeAll(keepingCapacity: true)
                finished += 1
                curl_multi_remove_handle(multi, easy)
                if started < total {
                    started += 1
                    curl_multi_add_handle(multi, easy)
                }
            }
            if finished < total { curl_multi_poll(multi, nil, 0, 1000, nil) }
        }
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let used = Usage.now
        print(
            String(
                format: "%d %.6f %.6f %d", total, seconds, used.seconds - usage.seconds, used.switches - usage.switches)
        )
    }

    struct FloorError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }
}
