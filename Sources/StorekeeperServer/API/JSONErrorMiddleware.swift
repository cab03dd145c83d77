import Foundation
import Hummingbird
import Logging
import StorekeeperStore

/// Makes every failure a JSON error: the API's own errors as they are, Hummingbird's (404 for
/// an unknown route, 413 for a body over the limit) with their status, and anything else a
/// 500 whose details go only to the log. Also counts requests for `/metrics`.
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let route = context.endpointPath ?? "unmatched"
        do {
            // No text bound to SQL may hold U+0000 (PostgreSQL refuses it): refuse it in the
            // path and query at the door, before any handler sees it.
            if request.uri.string.range(of: "%00", options: .caseInsensitive) != nil {
                throw APIError.badRequest("the path and query may not contain U+0000 (%00)")
            }
            let response = try await next(request, context)
            metrics.request(route: route, status: Int(response.status.code))
            return response
        } catch let error as APIError {
            metrics.request(route: route, status: Int(error.status.code))
            return try error.response(from: request, context: context)
        } catch let error as StoreError where error.code == .unavailable {
            // The database is down or out of connections: a fast 503 the client can retry,
            // never a hang or a 500. The cause goes to the log only.
            metrics.request(route: route, status: 503)
            context.logger.warning("database unavailable", metadata: ["route": "\(route)", "error": "\(error.message)"])
            return try APIError(.serviceUnavailable, code: .databaseUnavailable, message: "the database is unavailable; try again shortly")
                .response(from: request, context: context)
        } catch let error as HTTPResponseError {
            let status = error.status
            let code: APIError.Code
            switch status.code {
            case 404: code = .notFound
            case 405: code = .methodNotAllowed
            case 413: code = .payloadTooLarge
            case 400..<500: code = .badRequest
            default: code = .internalError
            }
            metrics.request(route: route, status: Int(status.code))
            let message = status.code == 413 ? "the request body is larger than the server accepts" : status.reasonPhrase
            return try APIError(status, code: code, message: message).response(from: request, context: context)
        } catch {
            context.logger.error("request failed", metadata: ["route": "\(route)", "error": "\(String(describing: error).prefix(300))"])
            metrics.request(route: route, status: 500)
            return try APIError(.internalServerError, code: .internalError, message: "the server could not complete the request")
                .response(from: request, context: context)
        }
    }
}
