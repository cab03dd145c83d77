/// The outcome of one attempt to deliver a notification to your server.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct SendAttemptResult: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Your server answered with HTTP 200-206.
    public static let success = SendAttemptResult(rawValue: "SUCCESS")

    /// Your server did not answer in time.
    public static let timedOut = SendAttemptResult(rawValue: "TIMED_OUT")

    /// The TLS handshake failed.
    public static let tlsIssue = SendAttemptResult(rawValue: "TLS_ISSUE")

    /// Redirects looped.
    public static let circularRedirect = SendAttemptResult(rawValue: "CIRCULAR_REDIRECT")

    /// No response was received.
    public static let noResponse = SendAttemptResult(rawValue: "NO_RESPONSE")

    /// A socket error occurred.
    public static let socketIssue = SendAttemptResult(rawValue: "SOCKET_ISSUE")

    /// The response used an unsupported character set.
    public static let unsupportedCharset = SendAttemptResult(rawValue: "UNSUPPORTED_CHARSET")

    /// The response was invalid.
    public static let invalidResponse = SendAttemptResult(rawValue: "INVALID_RESPONSE")

    /// The connection closed before the response completed.
    public static let prematureClose = SendAttemptResult(rawValue: "PREMATURE_CLOSE")

    /// Your server answered with an HTTP status outside 200-206.
    public static let unsuccessfulHttpResponseCode = SendAttemptResult(rawValue: "UNSUCCESSFUL_HTTP_RESPONSE_CODE")

    /// Another problem.
    public static let other = SendAttemptResult(rawValue: "OTHER")

    public static let known: [SendAttemptResult] = [
        .success, .timedOut, .tlsIssue, .circularRedirect, .noResponse, .socketIssue, .unsupportedCharset,
        .invalidResponse, .prematureClose, .unsuccessfulHttpResponseCode, .other,
    ]
}
