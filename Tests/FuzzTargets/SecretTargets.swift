import RestingCore
import RestingOffline

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzTarget {
    /// A secret from the input, placed wherever credentials travel — a credential header, a marked header, a
    /// token query parameter, a fragment, a JSON key at any depth, a form field — never survives redaction;
    /// and any body, parsed or not, is printed without a crash.
    static let redaction = FuzzTarget(name: "redaction") { input, violation in
        let (secretBytes, shape) = input.halves
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        let secret = "Zq" + String(secretBytes.prefix(32).map { alphabet[Int($0) % alphabet.count] }) + "9x"
        let policy = RedactionPolicy.default
        let noise = shape.text
        _ = policy.printableBody(shape, contentType: "application/json")
        _ = policy.printableBody(shape, contentType: "application/x-www-form-urlencoded")

        var headers: HTTPHeaderFields = ["Authorization": "Bearer \(secret)", "X-Api-Key": secret]
        headers.add(name: "X-Custom-\(noise.filter(\.isLetter).prefix(8))", value: secret, sensitive: true)
        let query = "access_token=\(secret)&accessToken=\(secret)&client%5Fsecret=\(secret)#id_token=\(secret)"
        guard let url = URL(string: "https://user:\(secret)@api.example.com/p?" + query) else {
            return violation("no URL for \(secret)")
        }
        let note = (try? JSONEncoder().encode(noise)).map { String(decoding: $0, as: UTF8.self) } ?? #""""#
        let json = Data(#"{"note":\#(note),"password":"\#(secret)","nested":[{"refreshToken":"\#(secret)"}]}"#.utf8)
        let form = Data("note=\(PercentEncoding.encode(noise))&password=\(secret)&client_secret=\(secret)".utf8)
        let request = HTTPRequest(method: .post, url: url, headers: headers, body: .bytes(json))
        var printed = [request.cURLDescription(), request.description, policy.url(url)]
        printed += headers.map { policy.value(ofHeader: $0) }
        printed.append(policy.printableBody(json, contentType: "application/json") ?? "")
        printed.append(policy.printableBody(form, contentType: "application/x-www-form-urlencoded") ?? "")
        printed.append(policy.exactBody(form, contentType: "application/x-www-form-urlencoded") ?? "")
        for text in printed where text.containsBytes(of: secret) {
            violation("the secret survived in \(text.debugDescription)")
        }
    }

    /// Any bytes in the offline store decode to an entry that rebuilds a request, or fail cleanly; an entry whose
    /// names are safe names no body file but its own, a plain name inside the store.
    static let offlineEntry = FuzzTarget(name: "offline-entry") { input, violation in
        guard let entry = try? JSONDecoder().decode(OfflineEntry.self, from: input) else { return }
        _ = entry.idempotencyKey
        if entry.namesAreSafe, let bodyFile = entry.bodyFile, bodyFile.contains("/") || bodyFile.hasPrefix(".") {
            violation("an entry with safe names points at \(bodyFile.debugDescription)")
        }
        let request = entry.request(body: entry.body ?? Data())
        _ = try? RestingRequestConverter().toHTTPRequest(request, baseUrl: entry.baseUrl ?? "https://api.example.com")
    }
}
