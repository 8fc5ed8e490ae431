import Foundation
import Observation
import RestingKit
import RestingServerHarness
import RestingTestSupport
import Testing

@Suite("Remote resource")
@MainActor
struct RemoteResourceTests {
    let client: RestingClient

    init() async throws { client = RestingClient(baseUrl: try await LocalServer.sharedImageServer.value.baseURL) }

    @Test("create, read, update and delete move the state, and observers hear of it")
    func crud() async throws {
        let created = RemoteResource(
            client: client, create: Endpoint<PostModel, PostModel>(.post, "/posts", encoding: .json))
        await created.create(PostModel(id: 0, userId: 3, title: "New", body: "b"))
        let id = try #require(created.value?.id)

        let post = RemoteResource(
            client: client, read: Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}", encoding: .query),
            update: Endpoint<PostModel, PostModel>(.put, "/posts/{{id}}", encoding: .json),
            delete: Endpoint<Nothing, Nothing>(.delete, "/posts/{{id}}", encoding: .query), pathVariables: ["id": id])
        guard case .idle = post.state else {
            Issue.record("a new resource is idle")
            return
        }

        let changes = Collector<Bool>()
        withObservationTracking {
            _ = post.state
        } onChange: {
            changes.append(true)
        }
        await post.load()
        #expect(changes.all.count == 1)
        #expect(post.value?.title == "New")

        await post.update(PostModel(id: id, userId: 3, title: "Updated", body: "b"))
        guard case .available(let updated) = post.state else {
            Issue.record("expected the updated value")
            return
        }
        #expect(updated.title == "Updated")

        await post.delete()
        guard case .idle = post.state else {
            Issue.record("a deleted resource is idle")
            return
        }
        await post.load()
        guard case .failure(RestingError.httpError(let error), let previous) = post.state else {
            Issue.record("reading a deleted post fails with 404")
            return
        }
        #expect(error.status == 404 && previous == nil)
    }

    @Test("an operation without an endpoint fails as unsupported, keeping the value")
    func missingEndpoint() async {
        let readOnly = RemoteResource(
            client: client, read: Endpoint<Nothing, PostModel>(.get, "/posts/1", encoding: .query))
        await readOnly.load()
        await readOnly.delete()
        guard case .failure(RestingError.unsupported, let previous) = readOnly.state else {
            Issue.record("expected unsupported")
            return
        }
        #expect(previous?.id == 1)
    }
}
