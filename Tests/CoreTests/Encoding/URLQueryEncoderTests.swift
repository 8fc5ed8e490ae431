import Foundation
import Testing

@testable import RestingCore

@Suite("URL query encoder")
struct URLQueryEncoderTests {
    struct Filter: Encodable {
        let term: String
        let page: Page
        let tags: [String]
        let flag: Bool
        let missing: String?
    }

    struct Page: Encodable {
        let size: Int
        let offset: Double
    }

    private func pairs(_ value: some Encodable, _ configure: (inout URLQueryEncoder) -> Void = { _ in }) throws
        -> [String]
    {
        var encoder = URLQueryEncoder()
        configure(&encoder)
        return try encoder.encode(value).map { "\($0.name)=\($0.value ?? "")" }
    }

    @Test("fields come out in declaration order, nested values as a[b], nil optionals left out")
    func nestedAndOrdered() throws {
        let filter = Filter(term: "a b", page: Page(size: 10, offset: 1.5), tags: ["x", "y"], flag: true, missing: nil)
        #expect(
            try pairs(filter) == ["term=a b", "page[size]=10", "page[offset]=1.5", "tags[]=x", "tags[]=y", "flag=true"])
    }

    @Test("arrays are named a[], a[0] or a repeated key, by strategy")
    func arrayStrategies() throws {
        struct Tags: Encodable { let tags: [Int] }
        let tags = Tags(tags: [1, 2])
        #expect(try pairs(tags) { $0.arrayEncoding = .brackets } == ["tags[]=1", "tags[]=2"])
        #expect(try pairs(tags) { $0.arrayEncoding = .indexed } == ["tags[0]=1", "tags[1]=2"])
        #expect(try pairs(tags) { $0.arrayEncoding = .repeatedKey } == ["tags=1", "tags=2"])
    }

    @Test("nil inside an array is kept as an empty element, not dropped with the array")
    func nilInArraysIsKept() throws {
        struct Values: Encodable {
            let values: [Int?]
            let after: String
        }
        let values = Values(values: [1, nil, 3], after: "z")
        #expect(
            try pairs(values) { $0.arrayEncoding = .indexed } == [
                "values[0]=1", "values[1]=", "values[2]=3", "after=z",
            ])
        #expect(try pairs(values) == ["values[]=1", "values[]=", "values[]=3", "after=z"])
    }

    @Test("arrays of objects nest under their index")
    func arraysOfObjects() throws {
        struct Order: Encodable { let items: [Page] }
        let order = Order(items: [Page(size: 1, offset: 0), Page(size: 2, offset: 0.5)])
        #expect(
            try pairs(order) { $0.arrayEncoding = .indexed } == [
                "items[0][size]=1", "items[0][offset]=0.0", "items[1][size]=2", "items[1][offset]=0.5",
            ])
    }

    @Test("dictionaries are encoded with sorted keys, so the order is the same on every run")
    func dictionariesAreStable() throws {
        let value = ["zeta": 1, "alpha": 2, "mid": 3]
        #expect(try pairs(value) == ["alpha=2", "mid=3", "zeta=1"])
        struct Wrapper: Encodable { let meta: [String: String] }
        #expect(try pairs(Wrapper(meta: ["b": "2", "a": "1"])) == ["meta[a]=1", "meta[b]=2"])
    }

    @Test("key strategies convert coding keys")
    func keyStrategies() throws {
        struct Keys: Encodable {
            let userId: Int
            let imageURL: String
            let plain: Int
        }
        let keys = Keys(userId: 1, imageURL: "u", plain: 2)
        #expect(
            try pairs(keys) { $0.keyEncodingStrategy = .convertToSnakeCase } == ["user_id=1", "image_url=u", "plain=2"])
        #expect(
            try pairs(keys) { $0.keyEncodingStrategy = .custom { $0.uppercased() } } == [
                "USERID=1", "IMAGEURL=u", "PLAIN=2",
            ])
    }

    @Test("date strategies")
    func dateStrategies() throws {
        struct When: Encodable { let at: Date }
        let when = When(at: Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try pairs(when) == ["at=2023-11-14T22:13:20Z"])
        #expect(try pairs(when) { $0.dateEncodingStrategy = .secondsSince1970 } == ["at=1700000000.0"])
        #expect(try pairs(when) { $0.dateEncodingStrategy = .millisecondsSince1970 } == ["at=1700000000000.0"])
        #expect(try pairs(when) { $0.dateEncodingStrategy = .deferredToDate } == ["at=721692800.0"])
        #expect(try pairs(when) { $0.dateEncodingStrategy = .custom { _ in "custom" } } == ["at=custom"])
    }

    @Test("data strategies")
    func dataStrategies() throws {
        struct Blob: Encodable { let bytes: Data }
        let blob = Blob(bytes: Data([0xDE, 0xAD]))
        #expect(try pairs(blob) == ["bytes=3q0="])
        #expect(
            try pairs(blob) { $0.dataEncodingStrategy = .custom { $0.map { String(format: "%02x", $0) }.joined() } }
                == ["bytes=dead"])
        #expect(try pairs(blob) { $0.dataEncodingStrategy = .deferredToData } == ["bytes[]=222", "bytes[]=173"])
    }

    @Test("bools as literals or numbers")
    func boolStrategies() throws {
        struct Flags: Encodable {
            let on: Bool
            let off: Bool
        }
        #expect(try pairs(Flags(on: true, off: false)) { $0.boolEncoding = .numeric } == ["on=1", "off=0"])
    }

    @Test("a top-level value that is not keyed cannot be a query")
    func topLevelScalarIsAnError() {
        #expect(throws: EncodingError.self) { try URLQueryEncoder().encode("just a string") }
        #expect(throws: EncodingError.self) { try URLQueryEncoder().encode([1, 2]) }
    }

    @Test("percent-encoding leaves only unreserved characters")
    func percentEncoding() {
        let items = [URLQueryItem(name: "a[b]", value: "x y&z=1+2/é"), URLQueryItem(name: "flag", value: nil)]
        #expect(URLQueryEncoder.percentEncoded(items) == "a%5Bb%5D=x%20y%26z%3D1%2B2%2F%C3%A9&flag")
    }

    @Test("the same value encodes identically every time")
    func stableAcrossRuns() throws {
        let value = ["k\(1)": [3, 1, 2], "j": [9]]
        let first = try pairs(value)
        for _ in 0..<20 { #expect(try pairs(value) == first) }
    }
}
