import AppStoreModels
import Foundation

/// A failed App Store Server API call: Apple's error code when it sent one, the HTTP status,
/// and how many attempts were made.
///
/// Apple's 87 documented error codes (and any it adds later, raw value kept) are
/// ``apiErrorCode`` values, so callers match `error.apiErrorCode == .transactionIdNotFound`.
public struct AppStoreServerAPIError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: AppStoreOpenValue {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Apple answered with an error status (see ``apiErrorCode`` and ``httpStatus``).
        public static let apiError = Code(rawValue: "apiError")
        /// No HTTP response: connection, TLS or timeout failure.
        public static let transport = Code(rawValue: "transport")
        /// A 2xx response whose body is not the documented JSON.
        public static let malformedResponse = Code(rawValue: "malformedResponse")
        /// Apple asked to wait (`Retry-After`) longer than the retry policy allows.
        public static let retryAfterTooLong = Code(rawValue: "retryAfterTooLong")
        /// The client is misconfigured (key, environment or base URL).
        public static let configuration = Code(rawValue: "configuration")
        /// A token or signature could not be produced.
        public static let signing = Code(rawValue: "signing")
        /// A request value could not be encoded.
        public static let invalidRequest = Code(rawValue: "invalidRequest")

        public static let known: [Code] = [
            .apiError, .transport, .malformedResponse, .retryAfterTooLong, .configuration, .signing, .invalidRequest,
        ]
    }

    /// What kind of failure this is.
    public var code: Code
    /// A human-readable reason.
    public var message: String
    /// The HTTP status of the last response, if one was received.
    public var httpStatus: Int?
    /// Apple's `errorCode`, when the response carried one.
    public var apiErrorCode: APIErrorCode?
    /// When Apple said the request may be sent again (`Retry-After`).
    public var retryAfter: Date?
    /// How many times the request was sent.
    public var attempts: Int

    public init(
        _ code: Code, _ message: String, httpStatus: Int? = nil, apiErrorCode: APIErrorCode? = nil,
        retryAfter: Date? = nil, attempts: Int = 0
    ) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.apiErrorCode = apiErrorCode
        self.retryAfter = retryAfter
        self.attempts = attempts
    }

    /// Whether sending the same request again later may succeed: Apple's retryable codes,
    /// 429, 5xx and transport failures.
    public var isRetryable: Bool {
        switch code {
        case .transport, .retryAfterTooLong: return true
        case .apiError:
            if apiErrorCode?.isRetryable == true { return true }
            guard let httpStatus else { return false }
            return httpStatus == 429 || httpStatus >= 500
        default: return false
        }
    }

    public var description: String {
        var parts = ["\(code.rawValue): \(message)"]
        if let httpStatus { parts.append("HTTP \(httpStatus)") }
        if let apiErrorCode { parts.append("errorCode \(apiErrorCode.rawValue)") }
        if attempts > 1 { parts.append("after \(attempts) attempts") }
        return parts.joined(separator: ", ")
    }
}
