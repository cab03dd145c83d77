import AppStoreModels
import Foundation
import Hummingbird

/// An App Store Server API refusal as Apple answers it: an HTTP status and, except for 401,
/// the JSON body `{"errorCode": …, "errorMessage": …}` with one of Apple's error codes.
struct SimulatorAPIError: Error, Sendable {
    var status: HTTPResponse.Status
    var code: APIErrorCode?
    var message: String
    /// For 429: when the budget renews (sent as `Retry-After`, Unix milliseconds).
    var retryAfter: Date?

    /// An error carrying Apple's code; the HTTP status is the code's first three digits.
    init(_ code: APIErrorCode, _ message: String) {
        self.status = HTTPResponse.Status(code: code.httpStatus)
        self.code = code
        self.message = message
    }

    /// A 401 with an empty body, as Apple answers a missing or invalid token.
    static let unauthenticated: SimulatorAPIError = {
        var error = SimulatorAPIError(.generalBadRequest, "Unauthenticated")
        error.status = .unauthorized
        error.code = nil
        return error
    }()

    /// 429 with Apple's `RateLimitExceededError` and the instant the budget renews.
    static func rateLimited(until: Date) -> SimulatorAPIError {
        var error = SimulatorAPIError(.rateLimitExceeded, "Rate limit exceeded.")
        error.retryAfter = until
        return error
    }

    /// 400 for a body that is not the JSON the endpoint expects.
    static func malformedBody(_ detail: String) -> SimulatorAPIError {
        SimulatorAPIError(.generalBadRequest, "Bad request: \(detail)")
    }

    /// The HTTP response.
    var response: Response {
        var headers = HTTPFields()
        if let retryAfter {
            headers[.retryAfter] = String(Int64((retryAfter.timeIntervalSince1970 * 1000).rounded(.up)))
        }
        guard let code else { return Response(status: status, headers: headers) }
        let payload = ErrorPayload(errorCode: code, errorMessage: message)
        return Response.appleJSON(payload, status: status, headers: headers)
    }
}
