import Observation
import RestingCore

/// Where a ``RemoteResource`` stands; the last known value is kept while loading or after a failure.
public enum ResourceState<Value: Sendable>: Sendable {
    /// Nothing loaded yet.
    case idle
    /// A request is under way; `previous` is the value before it.
    case loading(previous: Value?)
    /// The value as last read or written.
    case available(Value)
    /// The last request failed; `previous` is the value before it.
    case failure(any Error, previous: Value?)
}

/// One remote value and its loading state, read, created, updated and deleted through endpoints
/// (GoodNetworking's `Resource`, without SwiftUI). Observable, so a view redraws when `state` changes.
///
/// ```swift
/// let post = RemoteResource(client: client,
///                           read: Endpoint<Nothing, PostModel>(.get, "/posts/{{id}}", encoding: .query),
///                           update: Endpoint<PostModel, PostModel>(.put, "/posts/{{id}}", encoding: .json),
///                           pathVariables: ["id": 1])
/// await post.load()
/// if case .available(let value) = post.state { … }
/// ```
@MainActor
@Observable
public final class RemoteResource<Value: Codable & Sendable> {
    /// Where the resource stands; observed by views.
    public private(set) var state: ResourceState<Value> = .idle

    @ObservationIgnored private let client: RestingClient
    @ObservationIgnored private let pathVariables: [String: any PathVariableValue]
    @ObservationIgnored private let readEndpoint: Endpoint<Nothing, Value>?
    @ObservationIgnored private let createEndpoint: Endpoint<Value, Value>?
    @ObservationIgnored private let updateEndpoint: Endpoint<Value, Value>?
    @ObservationIgnored private let deleteEndpoint: Endpoint<Nothing, Nothing>?

    /// A resource read, created, updated and deleted through the endpoints given (each optional), all with
    /// `pathVariables`.
    public init(
        client: RestingClient, read: Endpoint<Nothing, Value>? = nil, create: Endpoint<Value, Value>? = nil,
        update: Endpoint<Value, Value>? = nil, delete: Endpoint<Nothing, Nothing>? = nil,
        pathVariables: [String: any PathVariableValue] = [:]
    ) {
        self.client = client
        readEndpoint = read
        createEndpoint = create
        updateEndpoint = update
        deleteEndpoint = delete
        self.pathVariables = pathVariables
    }

    /// The last value known, whatever the state.
    public var value: Value? {
        switch state {
        case .idle: nil
        case .available(let value): value
        case .loading(let previous), .failure(_, let previous): previous
        }
    }

    /// Reads the value.
    public func load() async {
        guard let readEndpoint else {
            return fail(RestingError.unsupported(feature: "reading", transport: "this resource"))
        }
        await run { try await $0.perform(RestingRequest(endpoint: readEndpoint, pathVariables: $1)).value.body }
    }

    /// Creates `value` on the server; the server's answer becomes the value.
    public func create(_ value: Value) async {
        guard let createEndpoint else {
            return fail(RestingError.unsupported(feature: "creating", transport: "this resource"))
        }
        await run {
            try await $0.perform(RestingRequest(endpoint: createEndpoint, body: value, pathVariables: $1)).value.body
        }
    }

    /// Replaces the value on the server; the server's answer becomes the value.
    public func update(_ value: Value) async {
        guard let updateEndpoint else {
            return fail(RestingError.unsupported(feature: "updating", transport: "this resource"))
        }
        await run {
            try await $0.perform(RestingRequest(endpoint: updateEndpoint, body: value, pathVariables: $1)).value.body
        }
    }

    /// Deletes the value on the server; the resource becomes idle.
    public func delete() async {
        guard let deleteEndpoint else {
            return fail(RestingError.unsupported(feature: "deleting", transport: "this resource"))
        }
        let previous = value
        state = .loading(previous: previous)
        do {
            _ = try await client.perform(RestingRequest(endpoint: deleteEndpoint, pathVariables: pathVariables)).value
            state = .idle
        } catch {
            state = .failure(error, previous: previous)
        }
    }

    private func run(_ operation: @Sendable (RestingClient, [String: any PathVariableValue]) async throws -> Value)
        async
    {
        let previous = value
        state = .loading(previous: previous)
        do {
            state = .available(try await operation(client, pathVariables))
        } catch {
            state = .failure(error, previous: previous)
        }
    }

    private func fail(_ error: any Error) {
        state = .failure(error, previous: value)
    }
}
