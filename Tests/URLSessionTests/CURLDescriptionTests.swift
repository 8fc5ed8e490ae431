import Foundation
import RestingCore
import RestingServerHarness
import RestingURLSession
import Testing

@Suite("cURL descriptions replay against image_server")
struct CURLDescriptionTests {
    @Test("the command pastes into a shell and reproduces the request", .timeLimit(.minutes(5)))
    func replaysWithCurl() async throws {
        let server = try await LocalServer.sharedImageServer.value
        let request = HTTPRequest(
            method: .patch, url: try #require(URL(string: server.baseURL + "/echo/it's?q=a%20b&n=1")),
            headers: ["Content-Type": "application/json", "X-Quote": "it's \"quoted\""],
            body: .bytes(Data(#"{"title":"it's","n":1}"#.utf8)))
        let sent = try JSONDecoder().decode(Echo.self, from: try await URLSessionClient().send(request) { _ in }.body)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", request.cURLDescription(redaction: .none) + " --silent"]
        let output = Pipe()
        process.standardOutput = output
        await withCheckedContinuation { continuation in
            process.terminationHandler = { _ in continuation.resume() }
            do { try process.run() } catch { continuation.resume() }
        }
        #expect(process.terminationStatus == 0)
        let replayed = try JSONDecoder().decode(Echo.self, from: output.fileHandleForReading.readDataToEndOfFile())

        #expect(replayed.method == sent.method && replayed.path == sent.path && replayed.query == sent.query)
        #expect(replayed.body == sent.body)
        for name in ["Content-Type", "X-Quote"] {
            #expect(replayed.values(of: name) == sent.values(of: name), "\(name)")
        }
    }
}
