// The public type names of swift-http-types 1.6 (module HTTPTypes), as empty stand-ins: a file that imports
// RestingKit beside the real package meets these names.
public struct HTTPField {}
public struct HTTPFields {}
public struct HTTPRequest {}
public struct HTTPResponse {}
