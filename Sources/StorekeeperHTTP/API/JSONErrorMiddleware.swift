import Foundation
import Hummingbird
import Logging
import StorekeeperApps
import StorekeeperStore

/// Makes every failure a JSON error: the API's own errors as they are, Hummingbird's (404 for
/// an unknown route, 413 for a body over the limit) with their status, and anything else a
/// 500 whose details go only to the log.
package struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    package init() {}

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            // No text bound to SQL may hold U+0000 (PostgreSQL refuses it): refuse it in the
            // path and query at the door, before any handler sees it.
            if request.uri.string.range(of: "%00", options: .caseInsensitive) != nil {
                throw APIError.badRequest("the path and query may not contain U+0000 (%00)")
            }
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as StoreError where error.code == .unavailable {
            // The database is down or out of connections: a fast 503 the client can retry,
            // never a hang or a 500. The cause goes to the log only.
            context.logger.warning("database unavailable", metadata: ["route": "\(Self.route(context))", "error": "\(error.message)"])
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
            let message = status.code == 413 ? "the request body is larger than the server accepts" : status.reasonPhrase
            return try APIError(status, code: code, message: message).response(from: request, context: context)
        } catch {
            context.logger.error(
                "request failed", metadata: ["route": "\(Self.route(context))", "error": "\(String(describing: error).prefix(300))"])
            return try APIError(.internalServerError, code: .internalError, message: "the server could not complete the request")
                .response(from: request, context: context)
        }
    }

    package static func route(_ context: Context) -> String { context.endpointPath ?? "unmatched" }
}

/// Counts every request for `/metrics` by route template and final status (outside
/// ``JSONErrorMiddleware``, so errors are counted with the status they were answered with).
package struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    package let metrics: ServerMetrics

    package init(metrics: ServerMetrics) {
        self.metrics = metrics
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // Until the response head is ready: a streamed body's time is the client's.
        let start = ContinuousClock.now
        do {
            let response = try await next(request, context)
            metrics.request(route: context.endpointPath ?? "unmatched", status: Int(response.status.code), seconds: Self.seconds(since: start))
            return response
        } catch {
            // Only what the JSON error middleware could not answer reaches here.
            metrics.request(route: context.endpointPath ?? "unmatched", status: 500, seconds: Self.seconds(since: start))
            throw error
        }
    }
}
