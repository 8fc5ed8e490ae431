import Foundation
import Testing

@testable import RestingCore

@Suite("JSONValue literals and accessors")
struct JSONValueTests {
    @Test("literals write any JSON value, and encode as written")
    func literals() throws {
        let value: JSONValue = [
            "title": "Renamed", "done": true, "priority": 2, "ratio": 0.1, "tags": ["a"], "due": nil,
        ]
        #expect(value["title"] == .string("Renamed"))
        #expect(value["due"] == .null)
        #expect(value["tags"]?[0]?.stringValue == "a")
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(
            String(decoding: try encoder.encode(value), as: UTF8.self)
                == #"{"done":true,"due":null,"priority":2,"ratio":0.1,"tags":["a"],"title":"Renamed"}"#)
    }

    @Test(
        "integers are exact past Double's 2^53; a fraction is no Int",
        arguments: [Int.max, Int.min, 9_007_199_254_740_993, 0])
    func exactIntegers(value: Int) throws {
        #expect(JSONValue(value).intValue == value)
        let decoded = try JSONDecoder().decode(JSONValue.self, from: Data("\(value)".utf8))
        #expect(decoded.intValue == value)
    }

    @Test("accessors answer nil for another kind; a fraction is no Int; NaN is null")
    func accessors() {
        #expect(JSONValue(1.5).intValue == nil)
        #expect(JSONValue(1.5).doubleValue == 1.5)
        #expect(JSONValue("1").intValue == nil)
        #expect(JSONValue(true).boolValue == true)
        #expect(JSONValue.null.stringValue == nil)
        #expect(JSONValue(Double.nan) == .null)
        #expect(JSONValue(1e300) == .null, "past Decimal's range")
        #expect(JSONValue(1e100).doubleValue == 1e100)
        let array: JSONValue = ["a"]
        #expect(array[1] == nil)
        #expect(JSONValue.string("x")["a"] == nil)
    }
}

@Suite("RestingError equality")
struct RestingErrorEqualityTests {
    @Test("a test can expect a RestingError by value")
    func expectsByValue() {
        #expect(throws: RestingError.cancelled) { throw RestingError.cancelled }
        #expect(
            RestingError.missingPathVariable(name: "id", template: "/a/{{id}}")
                == .missingPathVariable(name: "id", template: "/a/{{id}}"))
        #expect(
            RestingError.missingPathVariable(name: "id", template: "/a")
                != .missingPathVariable(name: "x", template: "/a"))
        #expect(RestingError.cancelled != .shutDown)
        let notFound = HTTPError(status: 404, headers: [:], body: Data("{}".utf8), url: nil)
        #expect(RestingError.httpError(notFound) == .httpError(notFound))
        #expect(
            RestingError.httpError(notFound) != .httpError(HTTPError(status: 404, headers: [:], body: Data(), url: nil))
        )
        #expect(RestingError.bodyNotAllowed(method: .get) != .bodyNotAllowed(method: .head))
    }
}
