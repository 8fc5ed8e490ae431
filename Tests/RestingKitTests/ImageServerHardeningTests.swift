import Foundation
import RestingServerHarness
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// image_server is the demo's and the tests' server, and users run it: what a hostile client sends it ends in
/// a prompt 4xx, never a read past its limits or a thread held forever.
@Suite("image_server under hostile clients", .timeLimit(.minutes(5)))
struct ImageServerHardeningTests {
    let server: LocalServer

    init() async throws { server = try await LocalServer.sharedImageServer.value }

    @Test(
        "a negative or conflicting Content-Length, or a negative chunk size, is a 400 at once",
        arguments: [
            "POST /posts HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: -5\r\n\r\n",
            "POST /posts HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
            "POST /posts HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n-1\r\n",
            "PUT /upload/hostile.bin HTTP/1.1\r\nHost: t\r\nContent-Length: -1\r\n\r\n",
            "PUT /upload/hostile.bin HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n-ff\r\n",
        ])
    func invalidFraming(_ request: String) async throws {
        #expect(try await RawHTTP.statusLine(port: server.port, sending: Data(request.utf8)).hasPrefix("HTTP/1.1 400 "))
    }

    @Test("a multipart body without its boundary in the first 64 KiB is refused, not buffered")
    func preambleIsBounded() async throws {
        let preamble = Data(repeating: UInt8(ascii: "x"), count: 200 * 1024)
        let head =
            "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=abc\r\nContent-Length: \(preamble.count)\r\n\r\n"
        #expect(
            try await RawHTTP.statusLine(port: server.port, sending: Data(head.utf8) + preamble).hasPrefix(
                "HTTP/1.1 400 "))
    }

    @Test("a form with thousands of fields is refused")
    func fieldsAreCounted() async throws {
        var body = ""
        for index in 0..<1000 { body += "--abc\r\nContent-Disposition: form-data; name=\"f\(index)\"\r\n\r\nv\r\n" }
        body += "--abc--\r\n"
        let head =
            "POST /upload HTTP/1.1\r\nHost: t\r\nContent-Type: multipart/form-data; boundary=abc\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        #expect(
            try await RawHTTP.statusLine(port: server.port, sending: Data((head + body).utf8)).hasPrefix(
                "HTTP/1.1 413 "))
    }

    @Test("a suffix range of an empty file is unsatisfiable (416), never 206 bytes 0--1/0")
    func suffixRangeOfAnEmptyFile() async throws {
        let upload = "PUT /upload/empty.txt HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        let reply = try await RawHTTP.reply(port: server.port, sending: Data(upload.utf8))
        let name = try #require(
            reply.range(of: #""name": *"([^"]+)""#, options: .regularExpression).map { String(reply[$0]) }?
                .split(separator: "\"").last.map(String.init))
        let get = "GET /uploads/\(name) HTTP/1.1\r\nHost: t\r\nRange: bytes=-5\r\nConnection: close\r\n\r\n"
        #expect(try await RawHTTP.statusLine(port: server.port, sending: Data(get.utf8)).hasPrefix("HTTP/1.1 416 "))
    }

    @Test("a client that goes silent mid-request loses its connection after the socket timeout")
    func silentClientsAreDropped() async throws {
        let impatient = try await LocalServer.start(
            script: LocalServer.imageServerScript, arguments: ["--socket-timeout", "1"])
        defer { impatient.stop() }
        let reply = try await RawHTTP.reply(
            port: impatient.port, sending: Data("POST /posts HTTP/1.1\r\nHost: t\r\nContent-Length: 10\r\n\r\n{".utf8),
            readTimeout: 20)
        #expect(reply.isEmpty, "the server closed the connection without an answer: \(reply)")
    }
}

/// One raw exchange over a loopback socket, for requests no HTTP client would send.
enum RawHTTP {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The first line of the reply.
    static func statusLine(port: Int, sending request: Data) async throws -> String {
        String(try await reply(port: port, sending: request).split(separator: "\r\n", maxSplits: 1).first ?? "")
    }

    /// Everything the server sends until it closes the connection, or until `readTimeout` seconds of silence.
    static func reply(port: Int, sending request: Data, readTimeout: Int = 10) async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            // Blocking socket calls run on a Dispatch thread, never on the cooperative pool.
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result { try exchange(port: port, request: request, readTimeout: readTimeout) })
            }
        }
    }

    private static func exchange(port: Int, request: Data, readTimeout: Int) throws -> String {
        let descriptor = Loopback.tcpSocket()
        guard descriptor >= 0 else { throw Failure(description: "socket: \(errno)") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: readTimeout, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let failure = Loopback.connect(descriptor, toPort: port)
        guard failure == 0 else { throw Failure(description: "connect: \(failure)") }
        // The server may answer (and close) before taking the whole request: a failed send is not an error here.
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var reply = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            reply.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: reply, as: UTF8.self)
    }
}
