import Foundation
@_exported import RestingCore
@_exported import RestingURLSession

extension RestingClient {
    /// A client on the default transport, ``URLSessionClient/shared``.
    ///
    /// ```swift
    /// import RestingKit
    ///
    /// let restingClient = RestingClient(baseUrl: "https://jsonplaceholder.typicode.com")
    /// ```
    public convenience init(
        baseUrl: String, decoder: JSONDecoder = JSONDecoder(),
        requestConverter: any RequestConverter = RestingRequestConverter(),
        interceptors: [any RestingInterceptor] = [], networkInterceptors: [any RestingInterceptor] = [],
        acceptedStatusCodes: Range<Int> = 200..<300, concurrency: ConcurrencyMode = .unlimited,
        maximumRedirects: Int = TransportDefaults.maximumRedirects
    ) {
        self.init(
            baseUrl: baseUrl, decoder: decoder, httpClient: URLSessionClient.shared,
            requestConverter: requestConverter, interceptors: interceptors, networkInterceptors: networkInterceptors,
            acceptedStatusCodes: acceptedStatusCodes, concurrency: concurrency, maximumRedirects: maximumRedirects)
    }
}
