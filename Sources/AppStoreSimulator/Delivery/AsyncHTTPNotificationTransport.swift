import AppStoreModels
import AsyncHTTPClient
import Foundation

/// The live ``NotificationTransport``: an HTTP POST over AsyncHTTPClient with a short deadline,
/// as Apple expects a server to answer a notification within a few seconds.
///
/// Errors become Apple's `SendAttemptResult` values: a missed deadline is `TIMED_OUT`, a
/// connection closed mid-answer `PREMATURE_CLOSE`, a redirect loop `CIRCULAR_REDIRECT`, a
/// TLS failure `TLS_ISSUE`, a refused or broken connection `SOCKET_ISSUE`, a malformed answer
/// `INVALID_RESPONSE`, anything else `OTHER`.
public struct AsyncHTTPNotificationTransport: NotificationTransport {
    /// Deadlines and limits.
    public struct Configuration: Sendable, Hashable {
        /// The deadline for one post, from connecting to the end of the answer.
        public var timeout: Duration
        /// Answers longer than this are cut off (the body is never used).
        public var maximumResponseSize: Int

        /// A configuration; five seconds and 64 KiB by default.
        public init(timeout: Duration = .seconds(5), maximumResponseSize: Int = 1 << 16) {
            self.timeout = timeout
            self.maximumResponseSize = maximumResponseSize
        }
    }

    private let client: HTTPClient
    /// The deadlines and limits in use.
    public let configuration: Configuration

    /// Posts with `client` (by default the process-wide shared one, which needs no shutdown;
    /// a client you create yourself is yours to shut down).
    public init(client: HTTPClient = .shared, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
    }

    /// Runs `body` with a transport over a client of its own, shut down when `body` ends.
    ///
    /// Unlike the shared client, this one makes a single connection attempt per post, as
    /// Apple does: a server that refuses connections fails at once (`SOCKET_ISSUE`) instead
    /// of being retried until the deadline.
    public static func withOwnedClient<Result: Sendable>(
        configuration: Configuration = Configuration(),
        _ body: (AsyncHTTPNotificationTransport) async throws -> Result
    ) async throws -> Result {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        let client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: clientConfiguration)
        let result: Result
        do {
            result = try await body(AsyncHTTPNotificationTransport(client: client, configuration: configuration))
        } catch {
            try? await client.shutdown()
            throw error
        }
        try await client.shutdown()
        return result
    }

    /// Posts `body` and reports the status, or the failure Apple would record.
    public func post(_ body: Data, to url: URL, headers: [String: String]) async -> NotificationTransportResult {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .POST
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) {
            request.headers.add(name: name, value: value)
        }
        request.body = .bytes(body)
        let timeout = configuration.timeout.components
        let nanoseconds = timeout.seconds * 1_000_000_000 + timeout.attoseconds / 1_000_000_000
        do {
            let response = try await client.execute(request, timeout: .nanoseconds(max(1, nanoseconds)))
            let status = Int(response.status.code)
            // Read the answer so the connection can be reused; a server that answers with a
            // status and then stalls or overflows still answered with that status.
            _ = try? await response.body.collect(upTo: configuration.maximumResponseSize)
            return .response(status: status)
        } catch {
            return .failure(Self.sendAttemptResult(for: error))
        }
    }

    /// The `SendAttemptResult` Apple would record for a failed post.
    static func sendAttemptResult(for error: any Error) -> SendAttemptResult {
        if let error = error as? HTTPClientError {
            if [.deadlineExceeded, .readTimeout, .writeTimeout, .connectTimeout, .getConnectionFromPoolTimeout].contains(error) {
                return .timedOut
            }
            if error == .tlsHandshakeTimeout { return .tlsIssue }
            if [.remoteConnectionClosed, .uncleanShutdown].contains(error) { return .prematureClose }
            if [.redirectCycleDetected, .redirectLimitReached].contains(error) { return .circularRedirect }
            if [.invalidURL, .emptyHost, .emptyScheme, .cancelled, .alreadyShutdown].contains(error) { return .other }
            return .invalidResponse
        }
        // NIO's error types live in modules this target does not import (NIOSSL, NIOPosix,
        // NIOCore); their type names are stable public API, so they are matched by name.
        let typeName = String(reflecting: type(of: error))
        if typeName.contains("NIOSSL") || typeName.contains("TLS") { return .tlsIssue }
        if typeName.contains("IOError") || typeName.contains("NIOConnectionError") || typeName.contains("ChannelError") {
            return .socketIssue
        }
        if typeName.contains("HTTPParserError") || typeName.contains("HTTPDecoder") { return .invalidResponse }
        return .other
    }
}
