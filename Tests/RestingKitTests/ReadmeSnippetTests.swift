import Testing

@Suite("README snippets")
struct ReadmeSnippetTests {
    static let testedFiles = [
        "Tests/RestingKitTests/ReadmeExamples.swift", "Tests/RestingKitTests/ReadmeTransportExamples.swift",
        "Tests/RestingKitTests/ReadmeInterceptorExamples.swift", "Tests/RestingKitTests/ReadmeSiblingExamples.swift",
        "Tests/RestingKitTests/ReadmeStreamingExamples.swift",
        "Tests/RestingKitTests/ReadmeResponseStreamingExamples.swift",
        "Tests/RestingKitTests/ReadmeSemanticsExamples.swift",
        "Tests/ConformanceTests/UserTransportConformanceTests.swift", "Tests/ConformanceTests/TransportKitTests.swift",
        "Tests/HTTPSemanticsTests/DigestAuthTests.swift", "Tests/HTTPSemanticsTests/CallEventTests.swift",
        "Tests/HTTPSemanticsTests/ResilienceServerTests.swift", "Tests/HTTPSemanticsTests/WebSocketTests.swift",
        "Tests/RestingKitTests/ReadmeWebSocketExamples.swift",
        "Tests/CoreTests/Client/CallEventListenerTests.swift",
        "Tests/RestingKitTests/KintoClient.swift", "Tests/RestingKitTests/WholeAPIExamples.swift",
    ]

    @Test("every Swift example in the README is compiled and run by a test, word for word; every tested one is shown")
    func readmeMatchesTheTests() throws {
        let readme = try Snippets.inReadme()
        let tested = try Snippets.inSources(Self.testedFiles)
        let inArticles = Set(try Snippets.inArticles().keys.map { String($0.split(separator: ": ").last ?? "") })
        #expect(!readme.isEmpty)
        for (name, text) in readme.sorted(by: { $0.key < $1.key }) {
            guard let compiled = tested[name] else {
                Issue.record("README snippet '\(name)' has no tested twin")
                continue
            }
            #expect(text == compiled, "README snippet '\(name)' differs from the tested code")
        }
        let unshown = Set(tested.keys).subtracting(readme.keys).subtracting(inArticles)
        #expect(unshown.isEmpty, "tested snippets shown neither in the README nor in an article: \(unshown.sorted())")
    }

    @Test("every Swift example of the DocC articles is one the tests compile and run, word for word")
    func articlesMatchTheTests() throws {
        let articles = try Snippets.inArticles()
        let tested = try Snippets.inSources(Self.testedFiles)
        #expect(articles.count >= 20)
        for (name, text) in articles.sorted(by: { $0.key < $1.key }) {
            let snippet = String(name.split(separator: ": ").last ?? "")
            #expect(tested[snippet] != nil, "article snippet '\(name)' has no tested twin")
            #expect(
                tested[snippet] == nil || text == tested[snippet],
                "article snippet '\(name)' differs from the tested code")
        }
    }
}
