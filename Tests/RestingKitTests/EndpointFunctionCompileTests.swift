import Foundation
import RestingServerHarness
import Testing

/// An endpoint function's path parameters are the function's parameters: a call that misses one, names one the path
/// does not have or misspells one does not compile — found by the compiler, not by a call at run time. Each case is
/// type-checked by the toolchain's `swiftc` against the RestingCore module this test run was built with.
@Suite("Endpoint functions: a wrong path parameter does not compile")
struct EndpointFunctionCompileTests {
    /// The endpoint as a user writes it, and `call` for the use under test.
    static func source(calling call: String) -> String {
        """
        import RestingCore

        struct Collection: Decodable, Sendable {}
        enum Kinto {
            static func collection(bucket: String, id: String) -> Endpoint<Nothing, Collection> {
                Endpoint(.get, "/v1/buckets/\\(bucket)/collections/\\(id)")
            }
        }
        func use(_ client: RestingClient) async throws -> Collection {
            try await client.call(\(call))
        }
        """
    }

    /// The diagnostics of type-checking `source`, and whether it compiled.
    static func typecheck(_ source: String) async throws -> (compiled: Bool, diagnostics: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("endpoint-\(UUID().uuidString).swift")
        try Data(source.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        // The diagnostics are on standard error, which ChildProcess leaves alone: the shell sends them to the output.
        let (status, output) = try await ChildProcess.run(
            "/bin/sh", ["-c", #"exec swiftc -typecheck -I "$0" "$1" 2>&1"#, try modules().path, file.path])
        return (status == 0, String(decoding: output, as: UTF8.self))
    }

    /// Where this test run's build keeps its modules: beside the test binary, or under the repository's `.build`.
    static func modules() throws -> URL {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
                "Modules"),
            repository.appendingPathComponent(".build/debug/Modules"),
        ]
        return try #require(
            candidates.first {
                FileManager.default.fileExists(atPath: $0.appendingPathComponent("RestingCore.swiftmodule").path)
            }, "no RestingCore.swiftmodule in \(candidates.map(\.path))")
    }

    @Test("the call with every parameter compiles")
    func wellFormed() async throws {
        let result = try await Self.typecheck(Self.source(calling: #"Kinto.collection(bucket: "blog", id: "posts")"#))
        #expect(result.compiled, "\(result.diagnostics)")
    }

    @Test(
        "a missing, extra or misnamed path parameter is a compile error that names it",
        arguments: [
            (#"Kinto.collection(bucket: "blog")"#, "missing argument for parameter 'id'"),
            (#"Kinto.collection(bucket: "blog", id: "posts", page: 2)"#, "extra argument 'page'"),
            (#"Kinto.collection(bucket: "blog", collection: "posts")"#, "incorrect argument label"),
        ])
    func wrongParameter(call: String, diagnostic: String) async throws {
        let result = try await Self.typecheck(Self.source(calling: call))
        #expect(!result.compiled)
        #expect(result.diagnostics.contains(diagnostic), "\(result.diagnostics)")
    }
}
