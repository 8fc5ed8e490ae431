import RestingCore
import RestingMultipart

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One large transfer through `RestingClient`, for the streaming benchmark (`Benchmarks/streaming.py`):
///   upload-raw URL FILE          PUT FILE as a `.raw` body (a file URL, streamed from disk)
///   upload-multipart URL FILE    PUT a form of a text field and FILE as a `MultipartFile`
///   download URL COUNT DIR       COUNT downloads of URL at once, into DIR/download-N.bin
///   stream URL                   one GET of URL read as a `ResponseBodyStream`, every chunk discarded
///   stream-slow URL              the same, pausing 3 ms after each chunk: a reader slower than the network, whose
///                                memory must stay the fast reader's plus the stream's buffer
/// Prints "bytes seconds", like `Benchmarks/c/transfer.c`. Shared by the executables of each transport, so that the
/// curl one links neither URLSession nor FoundationNetworking and its peak RSS is the transport's own.
public enum StreamingTransfer {
    struct Form: Encodable, Sendable {
        let caption: String
        let file: MultipartFile
    }

    public static let actions = ["upload-raw", "upload-multipart", "download", "stream", "stream-slow"]

    public enum Failure: Error { case usage }

    /// Runs `action` with `arguments` (URL then FILE, or URL COUNT DIR) on `httpClient` and prints the result.
    public static func run(_ action: String, _ arguments: ArraySlice<String>, httpClient: any HTTPClient) async throws {
        guard let address = arguments.first, let url = URL(string: address),
            arguments.count >= (action.hasPrefix("stream") ? 1 : 2)
        else {
            throw Failure.usage
        }
        let base = "\(url.scheme ?? "http")://\(url.host ?? "127.0.0.1"):\(url.port ?? 80)"
        let client = RestingClient(baseUrl: base, httpClient: httpClient)
        let rest = Array(arguments.dropFirst())
        try await measure {
            switch action {
            case "upload-raw":
                let file = URL(fileURLWithPath: rest[0])
                let put = Endpoint<URL, Nothing>(
                    .put, url.path, encoding: .raw(contentType: "application/octet-stream"))
                _ = try await client.perform(RestingRequest(endpoint: put, body: file)).value
                return size(of: file)
            case "upload-multipart":
                let form = Form(caption: "benchmark", file: MultipartFile(url: URL(fileURLWithPath: rest[0])))
                let put = Endpoint<Form, Nothing>(.put, url.path, encoding: .multipartFormData)
                _ = try await client.perform(RestingRequest(endpoint: put, body: form)).value
                return try MultipartFormDataEncoder().encode(form).contentLength
            case "download":
                guard rest.count >= 2, let count = Int(rest[0]) else { throw Failure.usage }
                let get = Endpoint<Nothing, Data>(.get, url.path, encoding: .query)
                return try await withThrowingTaskGroup(of: Int64.self) { group in
                    for index in 0..<count {
                        let destination = URL(fileURLWithPath: rest[1]).appendingPathComponent("download-\(index).bin")
                        group.addTask {
                            try await client.download(RestingRequest(endpoint: get), to: destination, resume: false)
                                .value.size
                        }
                    }
                    return try await group.reduce(0, +)
                }
            case "stream", "stream-slow":
                // Read where the transport runs (as the README advises for loops): a chunk then reaches the
                // reader without a thread hop.
                let get = Endpoint<Nothing, ResponseBodyStream>(.get, url.path, encoding: .query)
                let pause: Duration? = action == "stream-slow" ? .milliseconds(3) : nil
                return try await withTaskExecutorPreference(client.executor) {
                    var received: Int64 = 0
                    for try await chunk in try await client.perform(RestingRequest(endpoint: get)).value.body {
                        received += Int64(chunk.count)
                        if let pause { try await Task.sleep(for: pause) }
                    }
                    return received
                }
            default:
                throw Failure.usage
            }
        }
    }

    /// Runs `transfer`, which returns the bytes it moved, and prints "bytes seconds".
    public static func measure(_ transfer: () async throws -> Int64) async throws {
        let start = ContinuousClock.now
        let bytes = try await transfer()
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print("\(bytes) \(seconds)")
    }

    /// The length of `file`, which the benchmark has just sent.
    public static func size(of file: URL) -> Int64 {
        var info = stat()
        return stat(file.path, &info) == 0 ? Int64(info.st_size) : 0
    }
}
