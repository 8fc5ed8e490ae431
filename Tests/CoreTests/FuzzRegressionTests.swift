import Foundation
import RestingFuzzTargets
import Testing

/// Every fuzz target over its committed corpus — the seeds and every input a fuzzer ever found a crash or a
/// broken property with — so that what was fixed stays fixed in `make test`, without a fuzzer.
@Suite("Fuzz corpora replayed")
struct FuzzRegressionTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus")

    @Test("every corpus input passes its target's property", arguments: FuzzTarget.all.map(\.name))
    func replay(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let folder = Self.corpus.appendingPathComponent(name)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        #expect(!files.isEmpty, "the \(name) corpus has seeds")
        for file in files {
            let input = try Data(contentsOf: folder.appendingPathComponent(file))
            target.run(input) { Issue.record("\(name)/\(file): \($0)") }
        }
    }
}
