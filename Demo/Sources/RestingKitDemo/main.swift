import Foundation
import RestingCurl
import RestingKit
import RestingServerHarness

// The RestingKit demo: walks through the README's usage against image_server.
//
//   swift run RestingKitDemo                          # starts image_server on a free port; libcurl transport
//   swift run RestingKitDemo --transport urlsession   # the same on URLSession
//   swift run RestingKitDemo --base-url http://127.0.0.1:9000

/// The value after `name` on the command line.
func option(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    return arguments.firstIndex(of: name).flatMap { $0 + 1 < arguments.count ? arguments[$0 + 1] : nil }
}

func fail(_ message: String) -> Never {
    print(message)
    exit(1)
}

var server: LocalServer?
let baseUrl: String
if let given = option("--base-url") {
    baseUrl = given
} else {
    do {
        let started = try LocalServer(script: LocalServer.imageServerScript)
        server = started
        baseUrl = started.baseURL
    } catch {
        fail("Could not start image_server: \(error)")
    }
}

let transport: any HTTPClient
let transportName: String
switch option("--transport") ?? "curl" {
case "curl":
    do {
        transport = try CurlClient()
    } catch {
        fail("Could not start the libcurl transport: \(error)")
    }
    transportName = "CurlClient (libcurl)"
case "urlsession":
    transport = URLSessionClient.shared
    transportName = "URLSessionClient"
case let other:
    fail("Unknown transport \(other): use curl or urlsession")
}

do {
    try await Demo(baseUrl: baseUrl, transport: transport, transportName: transportName).run()
    print("\nAll demo steps succeeded.")
    server?.stop()
} catch {
    server?.stop()
    fail("\nDemo failed: \(error)")
}
