import Foundation
import NameCollisionStandIns
import RestingCurl
import RestingKit
import RestingLogging
import RestingMetrics
import RestingMultipart
import RestingOpenAPI
import RestingTesting
import RestingTracing
import RestingTransportKit

// Every public type of RestingKit's libraries, looked up as a type (where an ambiguity is an error), beside the
// stand-ins. Regenerate the list when a public type is added: the api/ listings name them all.
enum EveryPublicType {
    typealias AuthInterceptorLookup = AuthInterceptor
    typealias CachePolicyLookup = CachePolicy
    typealias CacheStatusLookup = CacheStatus
    typealias CachedResponseLookup = CachedResponse
    typealias ConcurrencyModeLookup = ConcurrencyMode
    typealias CookieLookup = Cookie
    typealias CookieInterceptorLookup = CookieInterceptor
    typealias CookieJarLookup = CookieJar
    typealias CredentialProviderLookup = CredentialProvider
    typealias CurlClientLookup = CurlClient
    typealias CurlConfigurationLookup = CurlConfiguration
    typealias DeduplicationInterceptorLookup = DeduplicationInterceptor
    typealias DefaultsInterceptorLookup = DefaultsInterceptor
    typealias DiskCacheStoreLookup = DiskCacheStore
    typealias DownloadFileWriterLookup = DownloadFileWriter
    typealias DownloadTargetLookup = DownloadTarget
    typealias DownloadedFileLookup = DownloadedFile
    typealias EndpointLookup = Endpoint<Nothing, Nothing>
    typealias EventMonitorInterceptorLookup = EventMonitorInterceptor
    typealias FakeChainLookup = FakeChain
    typealias FormArrayEncodingLookup = FormArrayEncoding
    typealias FormDateEncodingStrategyLookup = FormDateEncodingStrategy
    typealias FormKeyEncodingStrategyLookup = FormKeyEncodingStrategy
    typealias HTTPCacheInterceptorLookup = HTTPCacheInterceptor
    typealias HTTPCacheStoreLookup = HTTPCacheStore
    typealias HTTPDataResponseLookup = HTTPDataResponse
    typealias HTTPErrorLookup = HTTPError
    typealias HTTPHeaderFieldsLookup = HTTPHeaderFields
    typealias InMemoryCookieJarLookup = InMemoryCookieJar
    typealias InterceptorClockLookup = InterceptorClock
    typealias InterceptorExecutionLookup = InterceptorExecution
    typealias JSONLinesLookup = JSONLines<Int>
    typealias JSONRPCBatchLookup = JSONRPCBatch
    typealias JSONRPCClientLookup = JSONRPCClient
    typealias JSONRPCErrorLookup = JSONRPCError
    typealias JSONRPCMethodLookup = JSONRPCMethod<[Int], Int>
    typealias JSONValueLookup = JSONValue
    typealias LogLevelLookup = LogLevel
    typealias LoggingInterceptorLookup = LoggingInterceptor
    typealias MIMETypeLookup = MIMEType
    typealias MemoryCacheStoreLookup = MemoryCacheStore
    typealias MinimumTransferRateLookup = MinimumTransferRate
    typealias MockInterceptorLookup = MockInterceptor
    typealias MultipartBodyReaderLookup = MultipartBodyReader
    typealias MultipartErrorLookup = MultipartError
    typealias MultipartFileLookup = MultipartFile
    typealias MultipartFormDataLookup = MultipartFormData
    typealias MultipartFormDataEncoderLookup = MultipartFormDataEncoder
    typealias NothingLookup = Nothing
    typealias OfflineEntryLookup = OfflineEntry
    typealias OfflineQueueLookup = OfflineQueue
    typealias OriginLookup = Origin
    typealias PageSequenceLookup = PageSequence<[Int], Int>
    typealias PaginationLookup = Pagination
    typealias PathTemplateLookup = PathTemplate
    typealias PathVariableValueLookup = PathVariableValue
    typealias PersistentCookieJarLookup = PersistentCookieJar
    typealias PersistentRequestAttributeKeyLookup = PersistentRequestAttributeKey
    typealias ProgressHandlerLookup = ProgressHandler
    typealias ProgressablePromiseLookup = ProgressablePromise<Int>
    typealias PromiseFinalizerLookup = PromiseFinalizer
    typealias PublicSuffixListLookup = PublicSuffixList
    typealias RecordReplayInterceptorLookup = RecordReplayInterceptor
    typealias RedactionPolicyLookup = RedactionPolicy
    typealias RedirectingHTTPClientLookup = RedirectingHTTPClient
    typealias RemoteResourceLookup = RemoteResource<Int>
    typealias RequestAttributeKeyLookup = RequestAttributeKey
    typealias RequestAttributesLookup = RequestAttributes
    typealias RequestBodyLookup = RequestBody
    typealias RequestBodyReaderLookup = RequestBodyReader
    typealias RequestBodySequenceLookup = RequestBodySequence
    typealias RequestBodySequenceIterationLookup = RequestBodySequence.Iteration
    typealias RequestConverterLookup = RequestConverter
    typealias RequestEncodingLookup = RequestEncoding
    typealias RequestMethodLookup = RequestMethod
    typealias RequestRewriterLookup = RequestRewriter
    typealias ResourceStateLookup = ResourceState<Int>
    typealias ResponseBodyLookup = ResponseBody
    typealias ResponseBodyFeedLookup = ResponseBodyFeed
    typealias ResponseBodyStreamLookup = ResponseBodyStream
    typealias ResponseLinesLookup = ResponseLines
    typealias ResponseStreamingLookup = ResponseStreaming
    typealias RestingClientLookup = RestingClient
    typealias RestingErrorLookup = RestingError
    typealias RestingEventLookup = RestingEvent
    typealias RestingHeaderProviderLookup = RestingHeaderProvider
    typealias RestingInterceptorLookup = RestingInterceptor
    typealias RestingLoggerLookup = RestingLogger
    typealias RestingPathVariableProviderLookup = RestingPathVariableProvider
    typealias RestingRequestLookup = RestingRequest<Nothing, Nothing>
    typealias RestingRequestConverterLookup = RestingRequestConverter
    typealias RestingResponseLookup = RestingResponse<Int>
    typealias ResumeRefusalLookup = ResumeRefusal
    typealias RetryBudgetLookup = RetryBudget
    typealias RetryInterceptorLookup = RetryInterceptor
    typealias SensitiveHeadersLookup = SensitiveHeaders
    typealias ServerSentEventMessageLookup = ServerSentEventMessage
    typealias ServerSentEventsLookup = ServerSentEvents
    typealias StandardErrorLoggerLookup = StandardErrorLogger
    typealias StreamedBodyLookup = StreamedBody
    typealias StreamingResponseBodyLookup = StreamingResponseBody
    typealias StubHTTPClientLookup = StubHTTPClient
    typealias StubResponseLookup = StubResponse
    typealias SystemClockLookup = SystemClock
    typealias TransferMetricsLookup = TransferMetrics
    typealias TransferProgressLookup = TransferProgress
    typealias TransportDefaultsLookup = TransportDefaults
    typealias TransportErrorLookup = TransportError
    typealias URLQueryEncoderLookup = URLQueryEncoder
    typealias URLSessionClientLookup = URLSessionClient
    typealias ValidationInterceptorLookup = ValidationInterceptor
    typealias VirtualClockLookup = VirtualClock

    #if Logging
    typealias SwiftLogInterceptorLookup = SwiftLogInterceptor
    #endif
    #if Metrics
    typealias MetricsInterceptorLookup = MetricsInterceptor
    #endif
    #if Tracing
    typealias TracingInterceptorLookup = TracingInterceptor
    #endif
    #if OpenAPI
    typealias RestingClientTransportLookup = RestingClientTransport
    typealias ClientMiddlewareInterceptorLookup = ClientMiddlewareInterceptor
    #endif
}
