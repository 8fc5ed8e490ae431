import Testing

@testable import RestingCore

@Suite("Path templates")
struct PathTemplateTests {
    private func render(_ template: String, _ values: [String: String]) throws(RestingError) -> String {
        try PathTemplate(template).render { values[$0] }
    }

    @Test("a variable is replaced by its value")
    func replacesAVariable() throws {
        #expect(try render("/posts/{{post_id}}", ["post_id": "1"]) == "/posts/1")
        #expect(try render("/users/{{ user }}/posts/{{id}}", ["user": "ann", "id": "7"]) == "/users/ann/posts/7")
    }

    @Test(
        "characters that would change the URL's shape stay inside one segment",
        arguments: [
            ("a/b", "a%2Fb"), ("a?b=c", "a%3Fb%3Dc"), ("a#frag", "a%23frag"), ("100%", "100%25"),
            ("hello world", "hello%20world"), ("../etc", "..%2Fetc"), ("café", "caf%C3%A9"), ("😀", "%F0%9F%98%80"),
            ("a+b&c", "a%2Bb%26c"), ("~user_name-1.0", "~user_name-1.0"),
        ])
    func encodesOneSegment(value: String, encoded: String) throws {
        #expect(try render("/files/{{name}}", ["name": value]) == "/files/\(encoded)")
    }

    @Test("a value is never HTML-escaped")
    func isNotHTMLEscaped() throws {
        #expect(try render("/q/{{v}}", ["v": "<a&b>"]) == "/q/%3Ca%26b%3E")
    }

    @Test("dot segments and empty values are refused", arguments: [".", "..", ""])
    func refusesDotSegments(value: String) {
        #expect(throws: RestingError.self) { try render("/files/{{name}}", ["name": value]) }
        do {
            _ = try render("/files/{{name}}", ["name": value])
        } catch {
            guard case .invalidPathVariable(let name, let template, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(name == "name" && template == "/files/{{name}}")
        }
    }

    @Test("a triple-brace variable spans segments, each one encoded")
    func tripleBraceSpansSegments() throws {
        #expect(
            try render("/files/{{{path}}}", ["path": "docs/2024/report card.pdf"])
                == "/files/docs/2024/report%20card.pdf")
        #expect(try render("/files/{{{path}}}", ["path": "a?x/b#y"]) == "/files/a%3Fx/b%23y")
    }

    @Test(
        "a triple-brace variable cannot climb out or leave empty segments",
        arguments: ["a/../b", "../x", "a//b", "/a", "a/", "./a"])
    func tripleBraceIsValidated(value: String) {
        #expect(throws: RestingError.self) { try render("/files/{{{path}}}", ["path": value]) }
    }

    @Test("a missing variable is an error naming the variable and the template")
    func missingVariableNamesTheTemplate() {
        do {
            _ = try render("/users/{{user_id}}/posts/{{post_id}}", ["user_id": "1"])
            Issue.record("expected an error")
        } catch {
            guard case .missingPathVariable(let name, let template) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(name == "post_id")
            #expect(template == "/users/{{user_id}}/posts/{{post_id}}")
            #expect(
                error.description
                    == "missing path variable 'post_id' for template '/users/{{user_id}}/posts/{{post_id}}'")
        }
    }

    @Test("extra variables are ignored")
    func extraVariablesAreIgnored() throws {
        #expect(try render("/posts", ["unused": "x"]) == "/posts")
    }

    @Test(
        "malformed templates are rejected when parsed",
        arguments: ["/posts/{{id", "/posts/{{}}", "/posts/{{{id}}", "/a/{{bad name}}", "/a/{{x/y}}"])
    func malformedTemplates(template: String) {
        #expect(throws: RestingError.self) { try PathTemplate(template) }
    }

    @Test("variable names are listed in order")
    func listsVariableNames() throws {
        #expect(try PathTemplate("/u/{{user}}/f/{{{path}}}/{{user}}").variableNames == ["user", "path", "user"])
    }
}
