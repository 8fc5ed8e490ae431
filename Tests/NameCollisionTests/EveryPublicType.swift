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
    typealias AuthenticationChallengeLookup = AuthenticationChallenge
    typealias AuthInterceptorLookup = AuthInterceptor
    typealias CachedResponseLookup = CachedResponse
    typealias CachePolicyLookup = CachePolicy
    typealias CacheStatusLookup = CacheStatus
    typealias CallDeadlineLookup = CallDeadline
    typealias CallEventBufferLookup = CallEventBuffer
    typealias CallEventListenerLookup = CallEventListener
    typealias CallEventLookup = CallEvent
    typealias ChallengeAuthInterceptorLookup = ChallengeAuthInterceptor
    typealias ChallengeResponderLookup = ChallengeResponder
    typealias CircuitBreakerInterceptorLookup = CircuitBreakerInterceptor
    typealias CircuitBreakerStateLookup = CircuitBreakerState
    typealias ConcurrencyLimitInterceptorLookup = ConcurrencyLimitInterceptor
    typealias ConcurrencyModeLookup = ConcurrencyMode
    typealias ConnectionOptionsLookup = ConnectionOptions
    typealias ConnectionRouteLookup = ConnectionRoute
    typealias ConnectionWarmUpLookup = ConnectionWarmUp
    typealias ConnectionUpgradeLookup = ConnectionUpgrade
    typealias CookieInterceptorLookup = CookieInterceptor
    typealias CookieJarLookup = CookieJar
    typealias CookieLookup = Cookie
    typealias CredentialProviderLookup = CredentialProvider
    typealias CurlClientLookup = CurlClient
    typealias CurlConfigurationLookup = CurlConfiguration
    typealias DeadlineExceededLookup = DeadlineExceeded
    typealias DeadlineInterceptorLookup = DeadlineInterceptor
    typealias DeduplicationInterceptorLookup = DeduplicationInterceptor
    typealias DefaultsInterceptorLookup = DefaultsInterceptor
    typealias DigestAuthenticationLookup = DigestAuthentication
    typealias DiskCacheStoreLookup = DiskCacheStore
    typealias DownloadedFileLookup = DownloadedFile
    typealias DownloadFileWriterLookup = DownloadFileWriter
    typealias DownloadTargetLookup = DownloadTarget
    typealias EndpointLookup = Endpoint<Nothing, Nothing>
    typealias EventListenerFactoryLookup = EventListenerFactory
    typealias EventMonitorInterceptorLookup = EventMonitorInterceptor
    typealias FakeChainLookup = FakeChain
    typealias FormArrayEncodingLookup = FormArrayEncoding
    typealias FormDateEncodingStrategyLookup = FormDateEncodingStrategy
    typealias FormKeyEncodingStrategyLookup = FormKeyEncodingStrategy
    typealias HedgingInterceptorLookup = HedgingInterceptor
    typealias HostOverrideLookup = HostOverride
    typealias HTTPCacheInterceptorLookup = HTTPCacheInterceptor
    typealias HTTPCacheStoreLookup = HTTPCacheStore
    typealias HTTPDataResponseLookup = HTTPDataResponse
    typealias HTTPErrorBodyLookup = HTTPErrorBody
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
    typealias LocalEndpointLookup = LocalEndpoint
    typealias LoggingInterceptorLookup = LoggingInterceptor
    typealias LogLevelLookup = LogLevel
    typealias MemoryCacheStoreLookup = MemoryCacheStore
    typealias MIMETypeLookup = MIMEType
    typealias MinimumTransferRateLookup = MinimumTransferRate
    typealias MockInterceptorLookup = MockInterceptor
    typealias MultipartBodyReaderLookup = MultipartBodyReader
    typealias MultipartErrorLookup = MultipartError
    typealias MultipartFileLookup = MultipartFile
    typealias MultipartFormDataEncoderLookup = MultipartFormDataEncoder
    typealias MultipartFormDataLookup = MultipartFormData
    typealias NextPageLookup = NextPage
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
    typealias PollingLookup = Polling<Nothing, Int>
    typealias PollingScheduleLookup = PollingSchedule
    typealias ProgressablePromiseLookup = ProgressablePromise<Int>
    typealias ProgressHandlerLookup = ProgressHandler
    typealias PromiseFinalizerLookup = PromiseFinalizer
    typealias ProxyRouteLookup = ProxyRoute
    typealias PublicSuffixListLookup = PublicSuffixList
    typealias RateLimitInterceptorLookup = RateLimitInterceptor
    typealias RecordReplayInterceptorLookup = RecordReplayInterceptor
    typealias RedactionPolicyLookup = RedactionPolicy
    typealias RedirectingHTTPClientLookup = RedirectingHTTPClient
    typealias RemoteResourceLookup = RemoteResource<Int>
    typealias RequestAttributeKeyLookup = RequestAttributeKey
    typealias RequestAttributesLookup = RequestAttributes
    typealias RequestBodyLookup = RequestBody
    typealias RequestBodyReaderLookup = RequestBodyReader
    typealias RequestBodySequenceIterationLookup = RequestBodySequence.Iteration
    typealias RequestBodySequenceLookup = RequestBodySequence
    typealias RequestConverterLookup = RequestConverter
    typealias RequestEncodingLookup = RequestEncoding
    typealias RequestMethodLookup = RequestMethod
    typealias RequestRewriterLookup = RequestRewriter
    typealias ResourceStateLookup = ResourceState<Int>
    typealias ResponseBodyFeedLookup = ResponseBodyFeed
    typealias ResponseBodyLookup = ResponseBody
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
    typealias RestingRequestConverterLookup = RestingRequestConverter
    typealias RestingRequestLookup = RestingRequest<Nothing, Nothing>
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
    typealias TCPKeepAliveLookup = TCPKeepAlive
    typealias TransferMetricsLookup = TransferMetrics
    typealias TransferProgressLookup = TransferProgress
    typealias TransportDefaultsLookup = TransportDefaults
    typealias TransportErrorLookup = TransportError
    typealias UpgradedConnectionLookup = UpgradedConnection
    typealias URLQueryEncoderLookup = URLQueryEncoder
    typealias URLSessionClientLookup = URLSessionClient
    typealias ValidationInterceptorLookup = ValidationInterceptor
    typealias VirtualClockLookup = VirtualClock
    typealias WebSocketCloseCodeLookup = WebSocketCloseCode
    typealias WebSocketClosureLookup = WebSocketClosure
    typealias WebSocketFailureLookup = WebSocketFailure
    typealias WebSocketLookup = WebSocket
    typealias WebSocketMessageLookup = WebSocketMessage
    typealias WebSocketOptionsLookup = WebSocketOptions

    #if Logging
    typealias SwiftLogInterceptorLookup = SwiftLogInterceptor
    #endif
    #if Metrics
    typealias MetricsInterceptorLookup = MetricsInterceptor
    typealias ResilienceMetricsLookup = ResilienceMetrics
    #endif
    #if Tracing
    typealias TracingInterceptorLookup = TracingInterceptor
    #endif
    #if OpenAPI
    typealias RestingClientTransportLookup = RestingClientTransport
    typealias ClientMiddlewareInterceptorLookup = ClientMiddlewareInterceptor
    #endif
}
