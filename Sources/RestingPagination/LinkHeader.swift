import RestingCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// RFC 8288 `Link` header values: `<url>; rel="next", <url>; rel="last"`.
package enum LinkHeader {
    /// The target of the first link whose `rel` includes `relation`.
    package static func target(of header: String, relation: String) -> String? {
        var rest = Substring(header)
        while let open = rest.firstIndex(of: "<"), let close = rest[open...].firstIndex(of: ">") {
            let target = String(rest[rest.index(after: open)..<close])
            let parametersEnd = rest[close...].firstIndex(of: "<") ?? rest.endIndex
            let parameters = rest[rest.index(after: close)..<parametersEnd]
            for parameter in parameters.split(whereSeparator: { $0 == ";" || $0 == "," }) {
                let pair = parameter.split(separator: "=", maxSplits: 1).map(\.trimmingWhitespace)
                guard pair.count == 2, pair[0].lowercased() == "rel" else { continue }
                let relations = pair[1].trimming { $0 == "\"" }.lowercased().split(separator: " ")
                if relations.contains(Substring(relation.lowercased())) { return target }
            }
            rest = rest[parametersEnd...]
        }
        return nil
    }
}
