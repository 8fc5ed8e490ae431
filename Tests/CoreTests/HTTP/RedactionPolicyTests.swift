import Foundation
import Testing

@testable import RestingCore

@Suite("Redaction")
struct RedactionPolicyTests {
    let request = HTTPRequest(
        method: .post,
        url: URL(string: "https://me:pw@api.example.com/login?user=ann&access_token=s3cr3t&api_key=k3y")!,
        headers: [
            "Authorization": "Bearer s3cr3t", "Proxy-Authorization": "Basic s3cr3t", "Cookie": "id=s3cr3t",
            "Set-Cookie": "id=s3cr3t", "X-Visible": "shown",
        ],
        body: .bytes(Data(#"{"user":"ann","password":"s3cr3t","nested":{"refresh_token":"s3cr3t"}}"#.utf8)))

    @Test(
        "an address that is not even a valid URL is printed without its user-info, query values or fragment",
        arguments: [
            ("https://user:s3cret@api example.com/x?token=t0ken#frag", "https://api example.com/x?<redacted>"),
            ("//u:s3cret@host?token=t0ken", "//host?token=<redacted>"), ("ftp-ish:user:s3cret@", "<redacted>"),
            ("https://user:s3cret@api.example.com/p?token=t0ken", "https://api.example.com/p?token=<redacted>"),
            ("no scheme at all#t0ken", "no scheme at all#<redacted>"),
        ])
    func invalidAddresses(address: String, printed: String) {
        let shown = RedactionPolicy.default.address(address)
        #expect(shown == printed)
        #expect(!shown.contains("s3cret") && !shown.contains("t0ken"))
    }

    @Test("the converter's and the defaults interceptor's invalidURL errors carry no credential of the URL")
    func invalidURLErrorsAreRedacted() async throws {
        let converter = RestingRequestConverter()
        let endpoint = Endpoint<Nothing, Nothing>(.get, "/posts", encoding: .query)
        for base in ["https://user:s3cret@api example.com", "ftp-ish:user:s3cret@"] {
            #expect {
                try converter.toHTTPRequest(RestingRequest(endpoint: endpoint), baseUrl: base)
            } throws: { error in
                guard case RestingError.invalidURL(let url, _) = error else { return false }
                return !url.contains("s3cret") && !"\(error)".contains("s3cret")
            }
        }
    }

    @Test("every listed secret is hidden from a cURL description: headers, query, user-info and JSON keys")
    func curlDescriptionRedactsEverySecret() {
        let command = request.cURLDescription()
        #expect(!command.contains("s3cr3t") && !command.contains("k3y") && !command.contains("pw@"))
        for shown in [
            "X-Visible: shown", "user=ann", "\"user\":\"ann\"", "Authorization: <redacted>", "access_token=<redacted>",
        ] {
            #expect(command.contains(shown), "\(shown) in \(command)")
        }
    }

    @Test("configured header names, query parameters and JSON keys are hidden too")
    func configurableNames() {
        var policy = RedactionPolicy.default
        policy.headerNames.insert("X-VISIBLE")  // any spelling
        policy.queryParameters.insert("user")
        policy.jsonBodyKeys.insert("user")
        let command = request.cURLDescription(redaction: policy)
        #expect(!command.contains("shown") && !command.contains("ann"))
    }

    @Test("a redacted JSON body keeps every other value as sent: large integers, decimals, nulls, nesting, arrays")
    func jsonValuesKeptExactly() {
        let body = Data(
            #"[{"id":12345678901234567890,"price":0.1,"token":"s3cr3t","tags":["a",null,true],"n":{"secret":1}}]"#.utf8)
        #expect(
            RedactionPolicy.default.json(body)
                == #"[{"id":12345678901234567890,"n":{"secret":"<redacted>"},"price":0.1,"tags":["a",null,true],"token":"<redacted>"}]"#
        )
        #expect(
            RedactionPolicy.default.jsonIfRedacted(Data(#"{"user":"ann"}"#.utf8)) == nil,
            "nothing hidden: shown as sent")
        #expect(RedactionPolicy.default.json(Data("not json".utf8)) == nil)
        #expect(RedactionPolicy.default.json(Data("42".utf8)) == nil, "only objects and arrays are shown as JSON")
        #expect(RedactionPolicy.default.json(Data(#"{"a":1}"#.utf8), prettyPrinted: true) == "{\n  \"a\" : 1\n}")
    }

    @Test("without redaction the command carries the request exactly, body bytes included")
    func noRedaction() {
        let command = request.cURLDescription(redaction: .none)
        #expect(command.contains("Authorization: Bearer s3cr3t"))
        #expect(command.contains(#"'{"user":"ann","password":"s3cr3t","nested":{"refresh_token":"s3cr3t"}}'"#))
    }

    @Test("single quotes are escaped for the shell; file bodies are named, bodies that cannot be redacted described")
    func quotingAndBodies() {
        var request = HTTPRequest(method: .put, url: URL(string: "https://h/it's")!, body: .bytes(Data("it's".utf8)))
        #expect(
            request.cURLDescription(redaction: .none) == #"curl -X 'PUT' 'https://h/it'\''s' --data-binary 'it'\''s'"#)
        #expect(
            request.cURLDescription()
                == #"curl -X 'PUT' 'https://h/it'\''s' # a 4-byte body that cannot be redacted is not shown"#)
        request.body = .file(URL(fileURLWithPath: "/tmp/photo.jpg"))
        #expect(request.cURLDescription().hasSuffix("--data-binary '@/tmp/photo.jpg'"))
        request.body = .bytes(Data([0xFF, 0xFE, 0x00]))
        #expect(
            request.cURLDescription(redaction: .none).hasSuffix("# a 3-byte body that cannot be redacted is not shown"))
    }
}
