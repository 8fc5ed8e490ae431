import CCurl
import Testing

@testable import RestingCurl

/// Beneath `HTTPRequest.validate`, which refuses other schemes on every transport, libcurl itself is limited to
/// HTTP(S): a URL that reached a handle some other way still could not read a file or speak another protocol.
@Suite("CurlClient protocols")
struct ProtocolRestrictionTests {
    @Test("a handle refuses file, dict, gopher and ftp URLs with CURLE_UNSUPPORTED_PROTOCOL")
    func libcurlSpeaksOnlyHTTP() throws {
        let handle = try EasyHandle.make(for: CurlConfiguration())
        for url in ["file:///etc/hostname", "dict://127.0.0.1:1/", "gopher://127.0.0.1:1/", "ftp://127.0.0.1:1/"] {
            try handle.set(CURLOPT_URL, url, "URL")
            let code = curl_easy_perform(handle.raw)
            #expect(code == CURLE_UNSUPPORTED_PROTOCOL, "\(url): CURLcode \(code.rawValue)")
        }
    }
}
