import Foundation
import RestingKit
import RestingServerHarness

// The RestingKit demo: walks through the README's usage against image_server, over the URLSession transport.
//
//   swift run RestingKitDemo                          # starts image_server on a free port
//   swift run RestingKitDemo --base-url http://127.0.0.1:9000

let arguments = CommandLine.arguments
var server: LocalServer?
let baseUrl: String
if let index = arguments.firstIndex(of: "--base-url"), index + 1 < arguments.count {
    baseUrl = arguments[index + 1]
} else {
    do {
        let started = try LocalServer(script: LocalServer.imageServerScript)
        server = started
        baseUrl = started.baseURL
    } catch {
        print("Could not start image_server: \(error)")
        exit(1)
    }
}

let demo = Demo(baseUrl: baseUrl)
do {
    try await demo.run()
    print("\nAll demo steps succeeded.")
    server?.stop()
} catch {
    print("\nDemo failed: \(error)")
    server?.stop()
    exit(1)
}
