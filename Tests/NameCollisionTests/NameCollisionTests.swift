import Foundation
import NameCollisionStandIns
import RestingCurl
import RestingKit
import RestingMultipart
import RestingTesting
import Testing

// This file imports RestingKit beside stand-ins that declare the public type names of swift-http-types, NIO,
// async-http-client, swift-openapi-runtime and swift-async-algorithms (Tests/NameCollisions/StandIns), as an app's
// file that imports them all would. It compiles only while none of RestingKit's own names collides with theirs:
// every RestingKit type below is written unqualified, in type positions (an expression such as `Name(…)` may
// pick the one whose initialiser fits, and hide a collision), and EveryPublicType names each public type so. The seeds' names that do collide (`HTTPClient`,
// `HTTPRequest`) are the users' vocabulary and stay; such a file writes them `RestingCore.HTTPRequest`, as below.

@Suite("RestingKit's names beside the ecosystem's")
struct NameCollisionTests {
    @Test("every renamed type is used unqualified beside the packages it collided with")
    func renamedTypesAreUnambiguous() async throws {
        let method: RequestMethod = .post
        var headers: HTTPHeaderFields = ["Accept": "application/json"]
        headers.add(name: "Authorization", value: "Bearer token")
        let request = RestingCore.HTTPRequest(
            method: method, url: URL(fileURLWithPath: "/"), headers: headers, body: .bytes(Data("{}".utf8)))
        let body: ResponseBody = "ok"
        let raw = HTTPDataResponse(status: 200, headers: ["Content-Type": "text/plain"], body: body, url: request.url)
        let typed: RestingResponse<String> = RestingResponse(
            status: raw.status, headers: raw.headers, body: "ok", url: raw.url)
        let message: ServerSentEventMessage = ServerSentEventMessage(data: "tick")
        #expect(typed.body == "ok" && message.data == "tick" && request.headers.count == 2)
        #expect(try await raw.body.collect(upTo: 2) == Data("ok".utf8))
    }

    @Test("the rest of the public vocabulary is unambiguous too")
    func vocabularyIsUnambiguous() throws {
        let stub: StubHTTPClient = StubHTTPClient()
        stub.register(.get, "/", StubResponse.text("hi"))
        let transports: [any RestingCore.HTTPClient] = [stub, RedirectingHTTPClient(stub)]
        let client: RestingClient = RestingClient(
            baseUrl: "https://example.com", httpClient: transports[1], maximumRedirects: 3)
        let endpoint = Endpoint<Nothing, String>(.get, "/", encoding: .query)
        let kinds: [TransportError.Kind] = [.timedOut, .tooManyRedirects]
        let errors: [RestingError] = [.cancelled, .bodyAlreadyConsumed]
        #expect(client.maximumRedirects == 3 && endpoint.method == .get && kinds.count == errors.count)
    }
}
