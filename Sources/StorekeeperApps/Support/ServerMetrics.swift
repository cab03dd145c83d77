import CoreMetrics
import Foundation
import Metrics
import Prometheus
import StorekeeperStore

/// The server's metrics, recorded through swift-metrics into this instance's own Prometheus
/// registry (no global bootstrap, so several servers can live in one test process) and served
/// at `/metrics`.
///
/// Every label is from a closed set (routes, states, reasons, job kinds, status classes,
/// configured names), never a customer's, so the series stay few. The series the alerts in
/// `deploy/prometheus/alerts.yml` read are created at zero when the server starts
/// (``registerSeries(refusalReasons:processingStates:jobKinds:)``), so a rate exists before
/// the first event and `absent()` means the server stopped exporting, not that nothing happened.
public struct ServerMetrics: Sendable {
    package let registry: PrometheusCollectorRegistry
    package let factory: PrometheusMetricsFactory

    public init() {
        registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // A notification may wait minutes behind a backlog: buckets up to an hour.
        factory.durationHistogramBuckets[Self.processingDelay] = [
            .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5), .seconds(15), .seconds(60), .seconds(300), .seconds(900),
            .seconds(3600),
        ]
        self.factory = factory
        Gauge(
            label: "storekeeper_build_info", dimensions: [("version", BuildInfo.current.version), ("commit", BuildInfo.current.commit)],
            factory: factory
        )
        .record(1)
    }

    /// The histogram of how long a notification waited between its arrival and its outcome.
    package static let processingDelay = "storekeeper_notification_processing_delay_seconds"

    /// One answered request: its route template, its status and how long it took.
    package func request(route: String, status: Int, seconds: Double? = nil) {
        Counter(label: "storekeeper_http_requests_total", dimensions: [("route", route), ("status", "\(status)")], factory: factory).increment()
        if let seconds {
            Timer(label: "storekeeper_http_request_duration_seconds", dimensions: [], factory: factory).recordNanoseconds(Int64(seconds * 1e9))
        }
    }

    package func notificationReceived(version: NotificationVersion) {
        Counter(label: "storekeeper_notifications_received_total", dimensions: [("version", "\(version.rawValue)")], factory: factory).increment()
    }

    /// A notification's outcome (`processed`, `duplicate`, `rejected`, `failed`: given up on)
    /// and, when known, how long it waited since it arrived.
    package func notificationProcessed(state: String, delay: TimeInterval? = nil) {
        Counter(label: "storekeeper_notifications_processed_total", dimensions: [("state", state)], factory: factory).increment()
        if let delay {
            Timer(label: Self.processingDelay, dimensions: [], factory: factory).recordNanoseconds(Int64(max(0, delay) * 1e9))
        }
    }

    /// One attempt to forward a notification (`notificationForwarding`): `delivered`, `failed`
    /// (retried), `abandoned` (the last attempt failed) or `refused` (never sent).
    package func notificationForwarded(outcome: String) {
        Counter(label: "storekeeper_notifications_forwarded_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    /// A body the notification route turned away without storing it, by reason.
    package func notificationRefused(reason: String) {
        Counter(label: "storekeeper_notifications_refused_total", dimensions: [("reason", reason)], factory: factory).increment()
    }

    /// A Retention Messaging real-time request: the event it was answered with, or
    /// `refused_<reason>`.
    package func realtimeRequest(outcome: String) {
        Counter(label: "storekeeper_retention_requests_total", dimensions: [("outcome", outcome)], factory: factory).increment()
    }

    package func inboxPending(_ count: Int) {
        Gauge(label: "storekeeper_inbox_pending", dimensions: [], factory: factory).record(count)
    }

    /// One attempt to deliver an event to a destination: its outcome and how long it took.
    package func delivery(destination: String, outcome: DeliveryOutcome, seconds: Double) {
        let name =
            switch outcome {
            case .delivered: "delivered"
            case .retry: "retrying"
            case .dead: "dead"
            }
        Counter(label: "storekeeper_event_deliveries_total", dimensions: [("destination", destination), ("outcome", name)], factory: factory)
            .increment()
        Timer(label: "storekeeper_event_delivery_seconds", dimensions: [("destination", destination)], factory: factory)
            .recordNanoseconds(Int64(seconds * 1e9))
    }

    /// The standby's lag and where reads went, as of the latest watch.
    package func standby(_ watch: ReplicationWatch) {
        let snapshot = watch.snapshot
        Gauge(label: "storekeeper_standby_streaming", dimensions: [], factory: factory).record(snapshot?.streaming == true ? 1 : 0)
        Gauge(label: "storekeeper_standby_serving", dimensions: [], factory: factory).record(snapshot?.serving == true ? 1 : 0)
        if let snapshot, snapshot.streaming {
            Gauge(label: "storekeeper_standby_lag_seconds", dimensions: [], factory: factory).record(snapshot.lagSeconds)
            Gauge(label: "storekeeper_standby_lag_bytes", dimensions: [], factory: factory).record(Double(snapshot.lagBytes))
        }
        let routed = watch.routedReads
        Gauge(label: "storekeeper_standby_reads", dimensions: [("to", "standby")], factory: factory).record(routed.standby)
        Gauge(label: "storekeeper_standby_reads", dimensions: [("to", "primary")], factory: factory).record(routed.primary)
    }

    /// The Prometheus text exposition.
    package func exposition() -> String {
        var buffer: [UInt8] = []
        registry.emit(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }
}
