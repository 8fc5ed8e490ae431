import Foundation
import RestingFuzzTargets
import Testing

/// The Hardening article lists every reader of bytes with its fuzz target: a new reader without a row, or a row
/// whose target does not exist, fails here.
@Suite("Every reader has a fuzz target")
struct HardeningListTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The article's table: reader, what it reads, fuzz target ("—" for none).
    static func rows() throws -> [(reader: String, reads: String, target: String)] {
        let article = try String(
            contentsOf: repository.appendingPathComponent("Documentation/RestingCore.docc/Hardening.md"),
            encoding: .utf8)
        return article.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 4, cells[0].hasPrefix("`"), cells[2] == "—" || cells[2].hasPrefix("`") else {
                return nil
            }
            return (cells[0].trimmingCharacters(in: ["`"]), cells[1], cells[2].trimmingCharacters(in: ["`"]))
        }
    }

    /// The types under `Sources/` whose names say they read bytes (a declaration's name after `struct`, `enum` or
    /// `class`; plain string work: a `Regex` over every source line is slow under a sanitizer).
    static func readersInSources() throws -> Set<String> {
        let suffixes = ["Parser", "Reader", "Decoder", "Framing", "Assembler", "Splitter"]
        var names = Set<String>()
        let sources = repository.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            let text = try String(contentsOf: sources.appendingPathComponent(file), encoding: .utf8)
            for line in text.split(separator: "\n") where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                let words = line.split(whereSeparator: { $0 == " " || $0 == ":" || $0 == "<" || $0 == "{" })
                for (index, word) in words.enumerated().dropLast()
                where ["struct", "enum", "class"].contains(word) {
                    let name = String(words[index + 1])
                    if suffixes.contains(where: { name.hasSuffix($0) }) { names.insert(name) }
                }
            }
        }
        return names
    }

    @Test("every reader under Sources/ has a row, and every row's target exists with a corpus")
    func everyReaderIsListed() throws {
        let rows = try Self.rows()
        let listed = Set(rows.map(\.reader))
        let readers = try Self.readersInSources()
        #expect(!readers.isEmpty)
        for reader in readers.sorted() where !listed.contains(reader) {
            Issue.record("\(reader) reads bytes and has no row in the Hardening article's table of readers")
        }
        let targets = Set(FuzzTarget.all.map(\.name))
        for row in rows {
            if row.target == "—" {
                #expect(
                    row.reads.contains("the app's own"), "\(row.reader) reads a server's bytes without a fuzz target")
                continue
            }
            #expect(targets.contains(row.target), "\(row.reader)'s fuzz target \(row.target) does not exist")
            let corpus = Self.repository.appendingPathComponent("Fuzz/Corpus/\(row.target)").path
            #expect(FileManager.default.fileExists(atPath: corpus), "\(row.target) has no corpus")
        }
    }
}
