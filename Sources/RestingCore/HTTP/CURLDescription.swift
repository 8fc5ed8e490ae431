extension HTTPRequest {
    /// A `curl` command that reproduces this request, with secrets redacted by `redaction`.
    ///
    /// ```swift
    /// print(request.cURLDescription())                   // Authorization: <redacted>
    /// print(request.cURLDescription(redaction: .none))   // pastes into a shell and replays the request
    /// ```
    ///
    /// JSON and form bodies are inlined (redacted), file bodies read with `--data-binary @path`; any other body
    /// (text the policy cannot redact, binary bytes, a stream) is named in a trailing comment. With
    /// ``RedactionPolicy/none`` every UTF-8 body is inlined.
    public func cURLDescription(redaction: RedactionPolicy = .default) -> String {
        var parts = ["curl", "-X", ShellQuote.quote(method.rawValue), ShellQuote.quote(redaction.url(url))]
        for field in headers {
            parts += ["-H", ShellQuote.quote("\(field.name): \(redaction.value(ofHeader: field))")]
        }
        var comment: String?
        switch body.source {
        case .empty:
            break
        case .bytes(let data):
            if let text = redaction.exactBody(data, contentType: headers["Content-Type"]) {
                parts += ["--data-binary", ShellQuote.quote(text)]
            } else {
                comment = "# a \(data.count)-byte body that cannot be redacted is not shown"
            }
        case .file(let file):
            parts += ["--data-binary", ShellQuote.quote("@" + file.path)]
        case .stream, .sequence:
            comment = "# a streamed body\(body.contentLength.map { " of \($0) bytes" } ?? "") is not shown"
        }
        return ([parts.joined(separator: " ")] + (comment.map { [$0] } ?? [])).joined(separator: " ")
    }
}

/// POSIX shell quoting.
enum ShellQuote {
    /// `text` in single quotes, with embedded single quotes closed, escaped and reopened.
    static func quote(_ text: String) -> String {
        "'" + text.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "'\\''") + "'"
    }
}
