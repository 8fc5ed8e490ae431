import Foundation
import RestingCore
import RestingCurl
import RestingURLSession
import Testing

@Suite("Cancelled uploads and downloads clean up", .serialized, .timeLimit(.minutes(5)))
struct CancellationCleanupTests {
    let scratch: Scratch

    init() throws { scratch = try Scratch() }

    /// Cancels `start()`'s promise at a random point — before it starts, right away, or a few milliseconds in,
    /// mid-transfer — `rounds` times; returns how many calls ended cancelled and how many completed.
    private func cancelAtRandom<T: Sendable>(
        rounds: Int, _ start: () -> ProgressablePromise<T>
    ) async throws -> (cancelled: Int, completed: Int) {
        var outcome = (cancelled: 0, completed: 0)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<rounds {
            let promise = start()
            switch round % 3 {
            case 0: promise.cancel()
            case 1:
                await Task.yield()
                promise.cancel()
            default:
                // Not a synchronisation: the cancel lands wherever the transfer happens to be.
                try await Task.sleep(for: .microseconds(Int.random(in: 100...20_000, using: &generator)))
                promise.cancel()
            }
            do {
                _ = try await promise.value
                outcome.completed += 1
            } catch RestingError.cancelled {
                outcome.cancelled += 1
            }
        }
        return outcome
    }

    /// Waits until the transport has settled everything (a request that completes after all the cancelled
    /// ones; on URLSession, every task reported complete), then checks that no handle is left: no descriptor
    /// open into the scratch directory and, on curl, no live transfer record (read on the driver thread).
    private func expectNothingLeft(_ transport: Transport, client: RestingClient) async throws {
        let fence = try await client.perform(
            RestingRequest(endpoint: Endpoint<Nothing, Data>(.get, "/status/200", encoding: .query))
        ).value
        #expect(fence.status == 200)
        switch try transport.client() {
        case let curl as CurlClient:
            let census = await curl.settledCensus()
            #expect(census.live == 0)
        case let urlSession as URLSessionClient:
            // A cancelled call returns at once; its task lets go of the body stream when it completes.
            await urlSession.waitUntilIdle()
        default:
            break
        }
        #expect(scratch.openDescriptors == 0)
    }

    @Test(
        "downloads cancelled anywhere leave no partial file, no record and no open handle",
        arguments: Transport.allCases)
    func downloads(transport: Transport) async throws {
        _ = try await UploadServer.shared.value
        let name = "cancel-\(UUID().uuidString).bin"
        let (local, _) = try scratch.randomFile(name, size: 8 * 1024 * 1024)
        try FileManager.default.moveItem(at: local, to: UploadServer.directory.appendingPathComponent(name))
        let client = try await UploadServer.client(transport)
        let endpoint = Endpoint<Nothing, Data>(.get, "/uploads/{{name}}", encoding: .query)
        let destination = scratch.url.appendingPathComponent("download.bin")
        let outcome = try await cancelAtRandom(rounds: 30) {
            try? FileManager.default.removeItem(at: destination)
            return client.download(RestingRequest(endpoint: endpoint, pathVariables: ["name": name]), to: destination)
        }
        #expect(outcome.cancelled >= 10, "at least the cancels before the start land")
        try await expectNothingLeft(transport, client: client)
        #expect(scratch.contents.allSatisfy { $0 == "download.bin" }, "no .part or .resume file: \(scratch.contents)")
    }

    @Test("multipart uploads cancelled anywhere never crash and leave no open file", arguments: Transport.allCases)
    func uploads(transport: Transport) async throws {
        struct Upload: Encodable { let file: MultipartFile }
        let (file, _) = try scratch.randomFile("upload.bin", size: 8 * 1024 * 1024)
        let client = try await UploadServer.client(transport)
        let endpoint = Endpoint<Upload, Data>(.post, "/upload", encoding: .multipartFormData)
        let outcome = try await cancelAtRandom(rounds: 30) {
            client.perform(RestingRequest(endpoint: endpoint, body: Upload(file: MultipartFile(url: file))))
        }
        #expect(outcome.cancelled >= 10)
        try await expectNothingLeft(transport, client: client)
    }
}
