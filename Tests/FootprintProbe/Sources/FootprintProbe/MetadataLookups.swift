import MetadataLookupCounter
import RestingCore

/// The Swift runtime's generic metadata lookups a call makes: each hashes its type's arguments into a cache shared
/// by every thread (about 0.1 µs, a tenth of the pipeline's CPU when a call made 15), and RestingKit's generic code
/// makes one wherever it copies, destroys or calls a method of a type built on the app's request and response types
/// without knowing them (the Performance article, "Looking types up").
enum MetadataLookups {
    /// Lookups per GET decoded from JSON through the pipeline alone, one call at a time: three cheap interceptors and
    /// a transport that answers at once, so that every lookup counted is the pipeline's.
    static func perCall(total: Int) async throws -> Double {
        let client = Allocations.client("http://127.0.0.1:9", AnsweringTransport())
        let request = RestingRequest(endpoint: Endpoint<Nothing, Answer>(.get, "/posts/1"))
        return try await Allocations.perCall(total, counter: metadata_lookups_made) {
            _ = try await client.perform(request).value
        }
    }
}
