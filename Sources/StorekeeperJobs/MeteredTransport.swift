import AppStoreServerAPI
import StorekeeperApps

/// Counts every answer Apple's App Store Server API gives (each try, retries included) by
/// status into `storekeeper_apple_api_responses_total`, so that a revoked key (401) or a rate
/// limit (429) shows on `/metrics` and in alerts, not only in a job's error.
package struct MeteredTransport: HTTPTransport {
    package let base: any HTTPTransport
    package let metrics: ServerMetrics

    package init(base: any HTTPTransport, metrics: ServerMetrics) {
        self.base = base
        self.metrics = metrics
    }

    package func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue {
        let response: HTTPResponseValue
        do {
            response = try await base.send(request)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            metrics.appleResponse(status: nil)
            throw error
        }
        metrics.appleResponse(status: response.status)
        return response
    }
}
