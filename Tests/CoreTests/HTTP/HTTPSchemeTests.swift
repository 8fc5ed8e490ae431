import Testing

@testable import RestingCore

@Suite("HTTP scheme check")
struct HTTPSchemeTests {
    @Test(
        "http:// and https:// in any case are recognised with their length",
        arguments: [
            ("http://h", 7), ("https://h", 8), ("HTTP://h", 7), ("HttPS://h", 8), ("http://", 7), ("https://", 8),
        ])
    func recognised(address: String, length: Int) {
        #expect(address.httpSchemeLength == length)
    }

    @Test(
        "anything else is not an HTTP address",
        arguments: [
            "", "h", "http", "http:", "http:/", "https:/h", "http:h", "httpx://h", "httpss://h", "ftp://h",
            "file:///etc/passwd", " http://h", "hxxp://h", "HTTP\u{0}://h", "ｈttp://h", "htt",
        ])
    func refused(address: String) {
        #expect(address.httpSchemeLength == nil)
    }
}
