import Foundation
import RestingTestSupport

/// Where the README examples' `print` goes during a test: every line is collected so the test can assert it.
enum ExampleOutput {
    @TaskLocal static var lines: Collector<String>?
}

/// Shadows `Swift.print` in this test module, so the README's examples keep their `print` calls verbatim.
func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    let line = items.map { "\($0)" }.joined(separator: separator)
    if let lines = ExampleOutput.lines {
        lines.append(line)
    } else {
        Swift.print(line, terminator: terminator)
    }
}

/// Stands in for `UIDevice.current.identifierForVendor` of the original README (no UIKit on Linux).
enum DeviceInfo {
    static let identifier: String? = "device-1234"
}

/// Stands in for the original README's `AuthManager`.
enum AuthManager {
    struct User { let id: Int }
    static let user: User? = User(id: 1)
}

/// The README's Swift blocks marked `<!-- snippet: name -->`, and the blocks of this module's sources between
/// `// snippet: name` and `// end snippet`, by name, with their common indentation removed.
enum Snippets {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func inReadme() throws -> [String: String] { try inMarkdown("README.md") }

    /// The snippets of the DocC articles of every module's catalog, each named by its article and its snippet.
    static func inArticles() throws -> [String: String] {
        let documentation = repository.appendingPathComponent("Documentation")
        var snippets: [String: String] = [:]
        for catalog in try FileManager.default.contentsOfDirectory(atPath: documentation.path)
        where catalog.hasSuffix(".docc") {
            let folder = documentation.appendingPathComponent(catalog)
            for article in try FileManager.default.contentsOfDirectory(atPath: folder.path)
            where article.hasSuffix(".md") {
                for (name, text) in try inMarkdown("Documentation/\(catalog)/\(article)") {
                    snippets[article + ": " + name] = text
                }
            }
        }
        return snippets
    }

    /// The Swift blocks of a Markdown file that follow a `<!-- snippet: name -->` line, by name.
    static func inMarkdown(_ file: String) throws -> [String: String] {
        let lines = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
            .components(separatedBy: "\n")
        var snippets: [String: String] = [:]
        var index = 0
        while index < lines.count {
            let line = lines[index].trimmingCharacters(in: .whitespaces)
            index += 1
            guard line.hasPrefix("<!-- snippet: "), line.hasSuffix(" -->") else { continue }
            let name = String(line.dropFirst("<!-- snippet: ".count).dropLast(" -->".count))
            guard index < lines.count, lines[index].hasPrefix("```swift") else { continue }
            var body: [String] = []
            index += 1
            while index < lines.count, !lines[index].hasPrefix("```") {
                body.append(lines[index])
                index += 1
            }
            snippets[name] = dedented(body)
        }
        return snippets
    }

    static func inSources(_ files: [String]) throws -> [String: String] {
        var snippets: [String: String] = [:]
        for file in files {
            let lines = try String(contentsOf: repository.appendingPathComponent(file), encoding: .utf8)
                .components(separatedBy: "\n")
            var current: (name: String, body: [String])?
            for line in lines {
                let trimmed = line.trimmingCharacters(in: .whitespaces)
                if trimmed.hasPrefix("// snippet: ") {
                    current = (String(trimmed.dropFirst("// snippet: ".count)), [])
                } else if trimmed == "// end snippet", let finished = current {
                    snippets[finished.name] = dedented(finished.body)
                    current = nil
                } else {
                    current?.body.append(line)
                }
            }
        }
        return snippets
    }

    private static func dedented(_ lines: [String]) -> String {
        let indent =
            lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            .map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return lines.map { String($0.dropFirst(min(indent, $0.prefix { $0 == " " }.count))) }
            .joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
