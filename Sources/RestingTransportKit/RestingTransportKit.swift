// What a transport author needs besides `HTTPClient` and its vocabulary: the producer's end of a streamed response
// body, and the writer of a download's file. An app never imports this module; a transport does, and it brings
// RestingCore with it:
//
//     import RestingTransportKit
//
//     struct MyTransport: HTTPClient { … }
@_exported import RestingCore
