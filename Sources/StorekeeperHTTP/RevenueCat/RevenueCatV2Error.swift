import Foundation
import HTTPTypes
import Hummingbird
import StorekeeperStore

/// An error as RevenueCat's REST API v2 answers it:
///
/// ```json
/// {"object": "error", "type": "parameter_error", "param": "limit",
///  "doc_url": "https://errors.rev.cat/parameter-error", "message": "…", "retryable": false}
/// ```
///
/// `type` is one of v2's error types (`ErrorType` of the generated client); `param` names the
/// parameter at fault (`null` otherwise); `backoff_ms` is sent only with a retryable error.
package struct RevenueCatV2Error: Error, HTTPResponseError, Sendable {
    package var status: HTTPResponse.Status
    package var type: String
    package var param: String?
    package var message: String

    package init(_ status: HTTPResponse.Status, type: String, param: String? = nil, message: String) {
        self.status = status
        self.type = type
        self.param = param
        self.message = message
    }

    /// Whether the client may try again as it is (server trouble, too many requests).
    package var retryable: Bool { status == .serviceUnavailable || status == .tooManyRequests }

    package func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONBody.response(status: status, value: Body(self))
        if retryable { response.headers[.retryAfter] = "5" }
        return response
    }

    private struct Body: Encodable {
        let error: RevenueCatV2Error

        init(_ error: RevenueCatV2Error) { self.error = error }

        enum CodingKeys: String, CodingKey {
            case object, type, param, message, retryable
            case docURL = "doc_url"
            case backoffMilliseconds = "backoff_ms"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode("error", forKey: .object)
            try container.encode(error.type, forKey: .type)
            try container.encode(error.param, forKey: .param)
            try container.encode("https://errors.rev.cat/" + error.type.split(separator: "_").joined(separator: "-"), forKey: .docURL)
            try container.encode(error.message, forKey: .message)
            try container.encode(error.retryable, forKey: .retryable)
            if error.retryable { try container.encode(5000, forKey: .backoffMilliseconds) }
        }
    }

    package static let unauthenticated = RevenueCatV2Error(
        .unauthorized, type: "authentication_error",
        message: "a RevenueCat v2 secret key (or a Storekeeper API key of the project) is required: Authorization: Bearer sk_…")
    /// Unknown projects and projects the key does not open look alike: no project leaks.
    package static let projectNotFound = RevenueCatV2Error(
        .notFound, type: "resource_missing", param: "project_id", message: "no project with this id for this key")
    package static let readOnly = RevenueCatV2Error(
        .methodNotAllowed, type: "invalid_request",
        message: "Storekeeper serves RevenueCat's v2 read routes only; change state through Storekeeper's own API")
    package static let unknownRoute = RevenueCatV2Error(.notFound, type: "resource_missing", message: "no such v2 route")

    package static func missing(_ what: String, param: String) -> RevenueCatV2Error {
        RevenueCatV2Error(.notFound, type: "resource_missing", param: param, message: "no \(what) with this id in the project")
    }

    package static func parameter(_ param: String, _ message: String) -> RevenueCatV2Error {
        RevenueCatV2Error(.badRequest, type: "parameter_error", param: param, message: message)
    }

    /// The v2 form of any error a v2 route throws: Storekeeper's own errors keep their status
    /// and message; anything unexpected is a 500 whose details go only to the log.
    package static func from(_ error: any Error) -> RevenueCatV2Error {
        switch error {
        case let error as RevenueCatV2Error: return error
        case let error as APIError: return RevenueCatV2Error(error.status, type: type(of: error.status), message: error.message)
        case let error as StoreError where error.code == .unavailable:
            return RevenueCatV2Error(.serviceUnavailable, type: "server_error", message: "the database is unavailable; try again shortly")
        case let error as HTTPResponseError:
            return RevenueCatV2Error(error.status, type: type(of: error.status), message: error.status.reasonPhrase)
        default:
            return RevenueCatV2Error(.internalServerError, type: "server_error", message: "the server could not complete the request")
        }
    }

    private static func type(of status: HTTPResponse.Status) -> String {
        switch status.code {
        case 400: "parameter_error"
        case 401: "authentication_error"
        case 403: "authorization_error"
        case 404: "resource_missing"
        case 429: "rate_limit_error"
        case 400..<500: "invalid_request"
        default: "server_error"
        }
    }
}

/// Answers every failure of a v2 route with v2's error body (``RevenueCatV2Error``), so a
/// RevenueCat client never sees Storekeeper's own error shape.
package struct RevenueCatV2ErrorMiddleware: RouterMiddleware {
    package typealias Context = APIRequestContext

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let answer = RevenueCatV2Error.from(error)
            if answer.status == .internalServerError {
                context.logger.error(
                    "revenuecat v2 request failed",
                    metadata: ["route": "\(context.endpointPath ?? "unmatched")", "error": "\(String(describing: error).prefix(300))"])
            }
            return try answer.response(from: request, context: context)
        }
    }
}
