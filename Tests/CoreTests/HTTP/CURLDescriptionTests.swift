import Foundation
import RestingCore
import RestingServerHarness
import Testing

@Suite("cURL descriptions replay against image_server")
struct CURLDescriptionTests {
    /// What image_server's `/echo` says it received.
    private struct Echo: Decodable {
        let method: String
        let path: String
        let query: [[String]]
        let headers: [[String]]
        let body: String

        func values(of header: String) -> [String] {
            headers.filter { $0[0].lowercased() == header.lowercased() }.map { $0[1] }
        }
    }

    @Test("the command pastes into a shell and sends the request it describes", .timeLimit(.minutes(5)))
    func replaysWithCurl() async throws {
        let server = try await LocalServer.sharedImageServer.value
        let body = #"{"title":"it's","n":1}"#
        let request = HTTPRequest(
            method: .patch, url: try #require(URL(string: server.baseURL + "/echo/it's?q=a%20b&n=1")),
            headers: ["Content-Type": "application/json", "X-Quote": "it's \"quoted\""],
            body: .bytes(Data(body.utf8)))

        let (status, output) = try await ChildProcess.run(
            "/bin/sh", ["-c", request.cURLDescription(redaction: .none) + " --silent"])
        #expect(status == 0)
        let replayed = try JSONDecoder().decode(Echo.self, from: output)

        #expect(replayed.method == "PATCH")
        #expect(replayed.path == "/echo/it's")
        #expect(replayed.query == [["q", "a b"], ["n", "1"]])
        #expect(replayed.body == body)
        #expect(replayed.values(of: "Content-Type") == ["application/json"])
        #expect(replayed.values(of: "X-Quote") == [#"it's "quoted""#])
    }
}
