import Foundation
import RestingCookies
import RestingCore
import RestingCurl
import RestingOffline
import RestingURLSession
import RestingWebSocket
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

// A process apart from the tests: the crash tests of the durable stores kill it at random points; the proxy-environment
// tests start it with variables of their own; the process-exit test watches how it exits.
//   CrashProbe enqueue DIR FIRST COUNT   enqueues payloads FIRST..<FIRST+COUNT in an offline queue, printing "ok N" once each is durable
//   CrashProbe replay DIR SENT_LOG       replays, appending each delivered payload to SENT_LOG (fsynced)
//   CrashProbe cookies DIR FIRST COUNT   stores cookies cN=vN (N in FIRST..<FIRST+COUNT) in a persistent jar, printing "ok N"
//                                        once each is acknowledged; every third one also deletes c(N-1)
//   CrashProbe proxy-get CA PROXY CREDENTIALS URL…
//                                        GETs each URL through a CurlClient trusting the CA file CA too, whose proxy is
//                                        PROXY (a URL, or `environment`) answered with CREDENTIALS (`none`, or
//                                        `kerberos`: the ticket in the environment's cache), printing "URL STATUS" or
//                                        "URL failed KIND"
//   CrashProbe tls-at-exit CA URL        GETs URL (https) through a CurlClient trusting the CA file CA, then exits; an
//                                        exit handler GETs it again over the same connection, printing "at exit
//                                        STATUS" or "at exit failed KIND": a driver's TLS at exit must not crash
//   CrashProbe urlsession-get FOLLOWS URL
//                                        GETs URL through a URLSessionClient whose followsProxyEnvironment is FOLLOWS
//                                        (`true` or `false`), printing "URL STATUS" or "URL failed ERROR"
//   CrashProbe websocket BASE PATH       opens a WebSocket to BASE's PATH through a RestingClient on a CurlClient limited to
//                                        1 MiB of response, printing "opened" or "failed ERROR": a server's answer
//                                        must not crash it

struct Payload: Codable, Sendable { let n: Int }

/// Delivers by appending the payload's number to a log file, flushed before answering 201.
struct LoggingTransport: HTTPClient {
    let log: String

    func send(_ request: HTTPRequest, progress: @escaping ProgressHandler) async throws -> HTTPDataResponse {
        let payload = try JSONDecoder().decode(Payload.self, from: try await request.body.collect())
        let descriptor = open(log, O_WRONLY | O_APPEND | O_CREAT, 0o600)
        let line = "\(payload.n)\n"
        _ = line.withCString { write(descriptor, $0, strlen($0)) }
        fsync(descriptor)
        close(descriptor)
        return HTTPDataResponse(status: 201, url: request.url)
    }
}

/// What the exit handler of `tls-at-exit` sends with.
let atExit = Mutex<(CurlClient, URL)?>(nil)

/// `tls-at-exit`'s exit handler: a GET on the transport's thread, waited for here.
func sendAtExit() {
    guard let (transport, url) = atExit.withLock({ $0 }) else { return }
    let done = DispatchSemaphore(value: 0)
    Task(executorPreference: transport.executor) {
        do {
            say("at exit \(try await transport.send(HTTPRequest(method: .get, url: url)) { _ in }.status)")
        } catch RestingError.transportFailed(let failure) {
            say("at exit failed \(failure.kind)")
        } catch {
            say("at exit failed \(error)")
        }
        done.signal()
    }
    done.wait()
}

/// Writes a line straight to standard output (unbuffered), so that what the parent reads was really done.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

let arguments = CommandLine.arguments
if arguments.count > 4, arguments[1] == "proxy-get" {
    var configuration = CurlConfiguration()
    configuration.tls.caFile = arguments[2]
    configuration.proxy = arguments[3] == "environment" ? .environment : .url(arguments[3])
    configuration.proxyCredentials = arguments[4] == "kerberos" ? .currentKerberosTicket : nil
    let transport = try CurlClient(configuration: configuration)
    for url in arguments.dropFirst(5) {
        guard let target = URL(string: url) else { exit(2) }
        do {
            let response = try await transport.send(HTTPRequest(method: .get, url: target)) { _ in }
            say("\(url) \(response.status)")
        } catch RestingError.transportFailed(let failure) {
            say("\(url) failed \(failure.kind)")
        }
    }
    exit(0)
}
if arguments.count == 4, arguments[1] == "urlsession-get", let url = URL(string: arguments[3]) {
    let transport = URLSessionClient(followsProxyEnvironment: arguments[2] == "true")
    do {
        say("\(url) \(try await transport.send(HTTPRequest(method: .get, url: url)) { _ in }.status)")
    } catch {
        say("\(url) failed \(error)")
    }
    exit(0)
}
if arguments.count == 4, arguments[1] == "websocket" {
    var configuration = CurlConfiguration()
    configuration.maximumResponseSize = 1 << 20
    let client = RestingClient(baseUrl: arguments[2], httpClient: try CurlClient(configuration: configuration))
    do {
        let handshake = RestingRequest(endpoint: Endpoint<Nothing, Nothing>(.get, arguments[3]))
        let socket = try await client.webSocket(handshake)
        say("opened")
        await socket.close()
    } catch {
        say("failed \(error)")
    }
    exit(0)
}
if arguments.count == 4, arguments[1] == "tls-at-exit", let url = URL(string: arguments[3]) {
    // Registered before the transport initialises libcurl, and with it OpenSSL: at exit it runs after OpenSSL's own
    // handler would have, and sends over the connection then — what a driver still at work when the process exits does.
    atexit { sendAtExit() }
    var configuration = CurlConfiguration()
    configuration.tls.caFile = arguments[2]
    let transport = try CurlClient(configuration: configuration)
    let response = try await transport.send(HTTPRequest(method: .get, url: url)) { _ in }
    say("before exit \(response.status)")
    atExit.withLock { $0 = (transport, url) }
    exit(0)
}
guard arguments.count >= 4 else {
    say(
        "usage: CrashProbe enqueue DIR FIRST COUNT | replay DIR SENT_LOG | cookies DIR FIRST COUNT"
            + " | proxy-get CA PROXY CREDENTIALS URL… | tls-at-exit CA URL | urlsession-get FOLLOWS URL | websocket BASE PATH"
    )
    exit(2)
}
let directory = URL(fileURLWithPath: arguments[2])
let items = Endpoint<Payload, Nothing>(.post, "/items", encoding: .json)
switch arguments[1] {
case "cookies":
    let jar = try PersistentCookieJar(directory: directory)
    let origin = URL(string: "https://app.example.com/")!
    let first = Int(arguments[3]) ?? 0
    for n in first..<(first + (arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0)) {
        var fields = ["c\(n)=v\(n); Max-Age=86400; Path=/"]
        if n % 3 == 0 { fields.append("c\(n - 1)=; Max-Age=0; Path=/") }
        try await jar.receive(setCookieFields: fields, from: origin)
        say("ok \(n)")
    }
case "enqueue":
    let queue = try OfflineQueue(directory: directory)
    let first = Int(arguments[3]) ?? 0
    let count = arguments.count > 4 ? Int(arguments[4]) ?? 0 : 0
    for n in first..<(first + count) {
        try queue.enqueue(
            RestingRequest(endpoint: items, body: Payload(n: n), headers: ["Authorization": "Bearer secret"]))
        say("ok \(n)")
    }
case "replay":
    let queue = try OfflineQueue(directory: directory)
    let client = RestingClient(baseUrl: "https://outbox.invalid", httpClient: LoggingTransport(log: arguments[3]))
    let report = try await queue.replay(with: client) { sent, _ in say("sent \(sent)") }
    say("done \(report.sent)")
default:
    exit(2)
}
