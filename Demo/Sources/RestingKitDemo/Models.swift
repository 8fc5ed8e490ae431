import RestingKit

struct PostCreateModel: Codable, Sendable {
    let userId: Int
    let title: String
    let body: String
}

struct PostPatch: Codable, Sendable {
    let title: String
}

struct PostModel: Codable, Sendable {
    let id: Int
    let userId: Int
    let title: String
    let body: String
}

struct PostFilter: Codable, Sendable {
    let userId: Int
}

/// image_server's error body.
struct APIError: Decodable, Sendable {
    let error: String
    let status: Int
}

/// What image_server's `/echo` returns, in part.
struct EchoedRequest: Decodable, Sendable {
    let method: String
    let path: String
    let headers: [[String]]

    func values(of name: String) -> [String] {
        headers.filter { $0[0].lowercased() == name.lowercased() }.map { $0[1] }
    }
}

/// The API, described once.
enum API {
    static let listPosts = Endpoint<PostFilter, [PostModel]>(.get, "/posts", encoding: .query)
    static let createPost = Endpoint<PostCreateModel, PostModel>(.post, "/posts", encoding: .json)
    static let getPost = Endpoint<Nothing, PostModel>(.get, "/posts/{{post_id}}", encoding: .query)
    static let replacePost = Endpoint<PostCreateModel, PostModel>(.put, "/posts/{{post_id}}", encoding: .json)
    static let patchPost = Endpoint<PostPatch, PostModel>(.patch, "/posts/{{post_id}}", encoding: .json)
    static let deletePost = Endpoint<Nothing, Nothing>(.delete, "/posts/{{post_id}}", encoding: .query)
    static let maybeEmpty = Endpoint<Nothing, PostModel?>(.get, "/empty/{{status}}", encoding: .query)
    static let echoFile = Endpoint<Nothing, EchoedRequest>(
        .get, "/echo/users/{{userId}}/files/{{name}}", encoding: .query)
    static let slow = Endpoint<Nothing, Nothing>(.get, "/delay/{{ms}}", encoding: .query)
}
