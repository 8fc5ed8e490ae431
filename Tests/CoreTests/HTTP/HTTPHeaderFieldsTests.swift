import Testing

@testable import RestingCore

@Suite("HTTP headers")
struct HTTPHeadersTests {
    @Test("lookups ignore case and keep the spelling given")
    func lookupsIgnoreCase() {
        let headers: HTTPHeaderFields = ["Content-Type": "application/json", "X-Trace-ID": "abc"]
        #expect(headers["content-type"] == "application/json")
        #expect(headers["X-TRACE-ID"] == "abc")
        #expect(headers.map(\.name) == ["Content-Type", "X-Trace-ID"])
    }

    @Test("a dictionary literal keeps its written order, and repeats are kept")
    func orderAndRepeats() {
        var headers: HTTPHeaderFields = ["B": "1", "A": "2"]
        headers.add(name: "Set-Cookie", value: "a=1")
        headers.add(name: "set-cookie", value: "b=2")
        #expect(headers.map(\.name) == ["B", "A", "Set-Cookie", "set-cookie"])
        #expect(headers.values(for: "SET-COOKIE") == ["a=1", "b=2"])
    }

    @Test("setting a value replaces every field of that name where the first one was")
    func setReplacesInPlace() {
        var headers: HTTPHeaderFields = ["A": "1", "X": "old", "B": "2", "x": "older"]
        headers["X"] = "new"
        #expect(headers.map { "\($0.name)=\($0.value)" } == ["A=1", "X=new", "B=2"])
        headers["x"] = nil
        #expect(headers.map(\.name) == ["A", "B"])
    }

    @Test(
        "CR, LF, NUL and other control characters in a value are rejected",
        arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b", "a\u{7F}b", "a\u{1B}b"])
    func rejectsControlCharactersInValues(value: String) {
        let headers: HTTPHeaderFields = ["X-Test": value]
        #expect(throws: RestingError.self) { try headers.validate() }
        do { try headers.validate() } catch {
            #expect(!error.description.contains(value), "the value must not be echoed in the error")
        }
    }

    @Test("names that are not tokens are rejected", arguments: ["", "Bad Name", "X-Test\r\n", "a:b", "é"])
    func rejectsInvalidNames(name: String) {
        let headers = HTTPHeaderFields([(name, "v")])
        #expect(throws: RestingError.self) { try headers.validate() }
    }

    @Test("names compare ignoring ASCII case only: no other byte is folded")
    func caseInsensitiveEquality() {
        #expect("Content-Type".caseInsensitiveEquals("CONTENT-type"))
        #expect(
            "x-long-header-name-past-the-small-string-size".caseInsensitiveEquals(
                "X-LONG-HEADER-NAME-PAST-THE-SMALL-STRING-SIZE"))
        #expect("".caseInsensitiveEquals(""))
        // `@` and backquote are 0x40 and 0x60, `[` and `{` 0x5B and 0x7B: bit 5 apart, and not letters.
        #expect(!"a@".caseInsensitiveEquals("a`") && !"a[".caseInsensitiveEquals("a{"))
        #expect(!"Accept".caseInsensitiveEquals("Accept-") && !"Accept".caseInsensitiveEquals("Accepu"))
        #expect(!"cookie".caseInsensitiveEquals("coo\u{212A}ie"), "the Kelvin sign is not a K")
    }

    @Test("every credential name is found in any case, and names of the same lengths are not")
    func sensitiveNames() {
        for name in SensitiveHeaders.names {
            #expect(SensitiveHeaders.contains(name) && SensitiveHeaders.contains(name.uppercased()))
            #expect(!SensitiveHeaders.contains(String(name.dropLast()) + "_"), "\(name) with its last letter changed")
        }
        #expect(!SensitiveHeaders.contains("") && !SensitiveHeaders.contains("Accept"))
        #expect(!SensitiveHeaders.contains(String(repeating: "x", count: 1000)))
    }

    @Test("a name that lowercases to a credential's through Unicode (the Kelvin sign) is one, and is printed redacted")
    func sensitiveNameLookAlikes() {
        let lookAlike = "X-Api-\u{212A}ey"
        #expect(SensitiveHeaders.contains(lookAlike) && RedactionPolicy.default.redactsHeader(lookAlike))
        #expect(!HTTPHeaderFields([(lookAlike, "sk_live_secret")]).description.contains("sk_live_secret"))
    }

    @Test("tabs and visible characters are accepted")
    func acceptsValidValues() throws {
        let headers: HTTPHeaderFields = ["X-Test": "a\tb c; q=0.5, ünïcode"]
        try headers.validate()
    }

    @Test("credentials are redacted when headers are printed")
    func descriptionRedactsCredentials() {
        let headers: HTTPHeaderFields = [
            "Authorization": "Bearer secret-token", "proxy-authorization": "Basic c2VjcmV0",
            "Cookie": "session=secret", "Set-Cookie": "id=secret", "X-Visible": "shown",
        ]
        #expect(!headers.description.contains("secret"))
        #expect(!headers.description.contains("c2VjcmV0"))
        #expect(headers.description.contains("X-Visible: shown"))
        #expect(headers.description.contains("Authorization: <redacted>"))
    }
}
