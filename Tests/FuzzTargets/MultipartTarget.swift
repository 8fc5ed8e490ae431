import Foundation
import RestingMultipart

extension FuzzTarget {
    /// Text fields with any names and values, encoded, read back by the independent ``MultipartParser``: the same
    /// parts with the same bytes, no header forged by a value, and the announced length exact.
    static let multipart = FuzzTarget(name: "multipart") { input, violation in
        let pieces = input.split(separator: 0, omittingEmptySubsequences: false)
        let fields = stride(from: 0, to: pieces.count - 1, by: 2).map {
            (String(decoding: pieces[$0], as: UTF8.self), Data(pieces[$0 + 1]))
        }
        let parts = fields.map { MultipartFormData.Part(name: $0.0, content: .bytes($0.1)) }
        guard let form = try? MultipartFormData(parts: parts) else {
            if !fields.contains(where: { $0.0.contains(where: \.isNewline) }) {
                violation("refused \(fields.map(\.0))")
            }
            return
        }
        guard let body = try? form.readAll() else { return violation("the body could not be read") }
        if Int64(body.count) != form.contentLength {
            violation("announced \(form.contentLength) bytes, sent \(body.count)")
        }
        guard !fields.isEmpty else { return }
        guard let parsed = try? MultipartParser.parse(body, boundary: form.boundary) else {
            return violation("unparseable body")
        }
        guard parsed.count == fields.count else {
            return violation("\(fields.count) fields came back as \(parsed.count) parts")
        }
        for (field, part) in zip(fields, parsed) {
            if part.content != field.1 { violation("the value of \(field.0.debugDescription) changed") }
            if part.headers.count != 1
                || !part.headers[0].utf8.starts(with: "Content-Disposition: form-data; name=\"".utf8)
            {
                violation("forged part headers: \(part.headers)")
            }
        }
    }
}
