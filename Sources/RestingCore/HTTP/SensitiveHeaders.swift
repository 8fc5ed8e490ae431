/// The one list of header names that carry credentials. It drives every place a credential could escape: the
/// credential boundary (the last link of every call's chain) and the chain's redirect link keep these headers within
/// their origin, ``RedactionPolicy/default`` hides their values in logs, cURL descriptions and recordings, and the
/// HTTP cache and the offline queue never store them.
///
/// A credential header with another name is marked where it is set, and then travels with the same
/// protection: `AuthInterceptor` marks its own header whatever its name, and an app marks its own with
/// `sensitive: true`:
///
/// ```swift
/// request.headers.replaceOrAdd(name: "X-Tenant-Secret", value: secret, sensitive: true)
/// headerProvider.addHeader(key: "X-Tenant-Secret", value: secret, sensitive: true)
/// ```
public enum SensitiveHeaders {
    /// Lowercased names: the credential headers of HTTP itself, cookies, the API-key, token and CSRF headers in
    /// common use (GitLab's `PRIVATE-TOKEN` and `JOB-TOKEN`, Vault's `X-Vault-Token`, Shopify's
    /// `X-Shopify-Access-Token` among them), and a WebSocket's offered subprotocols, which carry a bearer token where a
    /// browser API can set no header (Kubernetes' `base64url.bearer.authorization.k8s.io.…`).
    public static let names: Set<String> = [
        "authorization", "proxy-authorization", "cookie", "set-cookie", "sec-websocket-protocol",
        "x-api-key", "api-key", "apikey", "x-apikey", "x-auth-token", "x-access-token", "x-refresh-token",
        "x-session-token", "x-csrf-token", "x-xsrf-token", "x-amz-security-token", "x-goog-api-key",
        "ocp-apim-subscription-key", "private-token", "job-token", "x-gitlab-token", "x-vault-token",
        "x-shopify-access-token",
    ]

    /// Whether `name`, lowercased, is one of ``names``.
    public static func contains(_ name: String) -> Bool {
        // A name of other characters than ASCII is matched as Unicode lowercases it (the Kelvin sign is a `k`): the
        // chain refuses to send such a name, but the offline queue and the cache filter names no one validated.
        guard name.isASCII else { return names.contains(name.lowercased()) }
        // Asked of every header field of every call: compared with the names of its length, never lowercased (which
        // allocates).
        let length = name.utf8.count
        return length < namesByLength.count && namesByLength[length].contains { $0.caseInsensitiveEquals(name) }
    }

    /// ``names`` by their length in bytes.
    private static let namesByLength: [[String]] = {
        var table = Array(repeating: [String](), count: (names.map(\.utf8.count).max() ?? 0) + 1)
        for name in names { table[name.utf8.count].append(name) }
        return table
    }()
}
