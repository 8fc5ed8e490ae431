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

        init(method: String? = nil, url: String? = nil, status: Int? = nil, headers: HTTPHeaders, body: Data,
             redaction: RedactionPolicy) {
            self.method = method
            self.url = url
            self.status = status
            self.headers = headers.map { [$0.name, redaction.value(ofHeader: $0)] }
            if let redactedJSON = redaction.jsonIfRedacted(body) {
                self.body = redactedJSON
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
            return HTTPDataResponse(status: status ?? 200, headers: HTTPHeaders(fields), body: bytes, url: url)
        }
    }

    var request: Message
    var response: Message

    init(request: HTTPRequest, body: Data, response: HTTPDataResponse, redaction: RedactionPolicy) {
        self.request = Message(method: request.method.rawValue, url: redaction.url(request.url), headers: request.headers,
                               body: body, redaction: redaction)
        self.response = Message(status: response.status, headers: response.headers, body: response.body, redaction: redaction)
    }
}
