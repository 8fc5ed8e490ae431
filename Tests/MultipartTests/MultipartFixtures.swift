import Foundation
import RestingFuzzTargets

@testable import RestingMultipart

extension MultipartFormData {
    func parsed() throws -> [ParsedPart] { try MultipartParser.parse(readAll(), boundary: boundary) }
}

/// A directory of its own per test, removed when the test ends.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("rk-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String, _ contents: Data) throws -> URL {
        let file = url.appendingPathComponent(name)
        try contents.write(to: file)
        return file
    }
}
