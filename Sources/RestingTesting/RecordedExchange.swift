import Foundation
import RestingCore

/// One recorded exchange, as stored in a fixture file.
struct RecordedExchange: Codable {
    struct Message: Codable {
        var method: String?
        var url: String?
        var status: Int?
        var headers: [[String]]
        /// The body as text when it is UTF-8…
        var body: String?
        /// …else in base64.
        var bodyBase64: String?

        /// A request's body is stored only where the policy can redact it (JSON, forms); a response's body
        /// must replay, so any other kind is stored as it came, in base64 when it is not UTF-8.
        init(
            method: String? = nil, url: String? = nil, status: Int? = nil, headers: HTTPHeaderFields, body: Data,
            redaction: RedactionPolicy, replayable: Bool
        ) {
            self.method = method
            self.url = url
            self.status = status
            self.headers = headers.map { [$0.name, redaction.value(ofHeader: $0)] }
            if let text = redaction.exactBody(body, contentType: headers["Content-Type"]) {
                self.body = text
            } else if !replayable {
                self.body = body.isEmpty ? "" : "<\(body.count)-byte body not recorded: it cannot be redacted>"
            } else if let text = String(data: body, encoding: .utf8) {
                self.body = text
            } else {
                bodyBase64 = body.base64EncodedString()
            }
        }

        func dataResponse(url: URL) throws -> HTTPDataResponse {
            let bytes: Data
            if let bodyBase64 {
                guard let decoded = Data(base64Encoded: bodyBase64) else {
                    throw RestingError.bodyUnreadable(reason: "the recorded body is not valid base64")
                }
                bytes = decoded
            } else {
                bytes = Data((body ?? "").utf8)
            }
            let fields = headers.compactMap { $0.count == 2 ? ($0[0], $0[1]) : nil }
            return HTTPDataResponse(
                status: status ?? 200, headers: HTTPHeaderFields(fields), body: ResponseBody(bytes), url: url)
        }
    }

    var request: Message
    var response: Message

    init(request: HTTPRequest, body: Data, response: HTTPDataResponse, redaction: RedactionPolicy) {
        self.request = Message(
            method: request.method.rawValue, url: redaction.url(request.url), headers: request.headers,
            body: body, redaction: redaction, replayable: false)
        self.response = Message(
            status: response.status, headers: response.headers, body: response.body.data ?? Data(),
            redaction: redaction,
            replayable: true)
    }
}
