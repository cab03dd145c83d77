import CoreMetrics
import Foundation
import Metrics
import StorekeeperStore

/// What an operator is alerted on (`deploy/prometheus/alerts.yml`, `docs/alerts.md`): the
/// database, the inbox's backlog, jobs given up on, Apple's answers, certificates running out.
extension ServerMetrics {
    /// The `status` label of `storekeeper_apple_api_responses_total`: the codes an operator acts
    /// on one by one (401 a bad key, 429 too fast), the other classes, and `unanswered` (no HTTP
    /// answer: refused connection, timeout, TLS).
    package static let appleStatuses = ["2xx", "401", "403", "404", "429", "4xx", "5xx", "unanswered", "other"]

    /// The `outcome` label of `storekeeper_job_failures_total`: `retrying` (the job runs again
    /// later) or `abandoned` (failed for good, or out of attempts).
    package static let jobOutcomes = ["retrying", "abandoned"]

    /// Creates at zero every series an alert reads, with the label values known at startup.
    package func registerSeries(refusalReasons: [String], processingStates: [String], jobKinds: [String]) {
        for version in ["1", "2"] {
            _ = Counter(label: "storekeeper_notifications_received_total", dimensions: [("version", version)], factory: factory)
        }
        for reason in refusalReasons {
            _ = Counter(label: "storekeeper_notifications_refused_total", dimensions: [("reason", reason)], factory: factory)
        }
        for state in processingStates {
            _ = Counter(label: "storekeeper_notifications_processed_total", dimensions: [("state", state)], factory: factory)
        }
        _ = Timer(label: Self.processingDelay, dimensions: [], factory: factory)
        for outcome in ["delivered", "failed", "abandoned", "refused"] {
            _ = Counter(label: "storekeeper_notifications_forwarded_total", dimensions: [("outcome", outcome)], factory: factory)
        }
        // An empty destination is no label at all to Prometheus: the sums over destinations
        // exist (at zero) before the first webhook is configured.
        for outcome in ["delivered", "retrying", "dead"] {
            _ = Counter(label: "storekeeper_event_deliveries_total", dimensions: [("destination", ""), ("outcome", outcome)], factory: factory)
        }
        _ = Timer(label: "storekeeper_event_delivery_seconds", dimensions: [("destination", "")], factory: factory)
        for kind in jobKinds {
            for outcome in Self.jobOutcomes {
                _ = Counter(label: "storekeeper_job_failures_total", dimensions: [("kind", kind), ("outcome", outcome)], factory: factory)
            }
        }
        for status in Self.appleStatuses {
            _ = Counter(label: "storekeeper_apple_api_responses_total", dimensions: [("status", status)], factory: factory)
        }
        // The scrape's own route: the requests' sums exist from the first scrape on (the
        // scrape is counted once it is answered).
        _ = Counter(label: "storekeeper_http_requests_total", dimensions: [("route", "/metrics"), ("status", "200")], factory: factory)
        _ = Timer(label: "storekeeper_http_request_duration_seconds", dimensions: [], factory: factory)
        inboxPending(0)
        Gauge(label: "storekeeper_inbox_oldest_pending_age_seconds", dimensions: [], factory: factory).record(0)
        // Unknown until the first sample: up, so a server that cannot be scraped is `up == 0`'s.
        Gauge(label: "storekeeper_database_up", dimensions: [], factory: factory).record(1)
    }

    /// A job run that threw: `final` when it will not run again.
    package func jobFailed(kind: String, final: Bool) {
        Counter(
            label: "storekeeper_job_failures_total", dimensions: [("kind", kind), ("outcome", final ? "abandoned" : "retrying")], factory: factory
        )
        .increment()
    }

    /// One call to Apple's App Store Server API: its HTTP status, or `nil` when none came back.
    package func appleResponse(status: Int?) {
        Counter(label: "storekeeper_apple_api_responses_total", dimensions: [("status", Self.appleStatus(status))], factory: factory).increment()
    }

    /// The label of `status` (one of ``appleStatuses``).
    package static func appleStatus(_ status: Int?) -> String {
        switch status {
        case nil: "unanswered"
        case let code? where (200..<300).contains(code): "2xx"
        case 401, 403, 404, 429: "\(status ?? 0)"
        case let code? where (400..<500).contains(code): "4xx"
        case let code? where (500..<600).contains(code): "5xx"
        default: "other"
        }
    }

    /// When a certificate the server relies on stops being valid: `kind` is `tls` (the server's
    /// own), `apple_root` (built in) or `trusted_root` (configured); `name` says which.
    package func certificateExpiry(kind: String, name: String, notAfter: Date) {
        Gauge(label: "storekeeper_certificate_expiry_timestamp_seconds", dimensions: [("kind", kind), ("name", name)], factory: factory)
            .record(notAfter.timeIntervalSince1970)
    }

    /// Reads what only the database knows, as a scrape asks: whether it answers and takes
    /// writes, how many notifications are pending and how long the oldest has waited. A
    /// database that does not answer within `timeout` counts as down and its query is cancelled,
    /// so the scrape answers instead of timing out (which would read as the server down).
    package func sample(_ store: any StorekeeperStorage, now: Date, timeout: Duration = .seconds(3)) async {
        let backlog = await withTaskGroup(of: (pending: Int, oldest: Date?)?.self) { group in
            group.addTask { try? await (store.pendingCount(), store.oldestPendingReceivedAt()) }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
        let up = backlog != nil && store.writeFailure == nil
        Gauge(label: "storekeeper_database_up", dimensions: [], factory: factory).record(up ? 1 : 0)
        guard let backlog else { return }
        inboxPending(backlog.pending)
        let age = backlog.oldest.map { max(0, now.timeIntervalSince($0)) } ?? 0
        Gauge(label: "storekeeper_inbox_oldest_pending_age_seconds", dimensions: [], factory: factory).record(age)
    }
}
