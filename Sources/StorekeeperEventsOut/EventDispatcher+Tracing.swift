import StorekeeperApps
import StorekeeperInbox
import StorekeeperStore
import Tracing

/// The outbox's part of a notification's trace (``NotificationTracing``): each delivery attempt
/// is a client span whose parent is the work that recorded its event (the event's stored
/// ``EventRecord/traceContext``), in whichever process and however much later it runs.
///
/// A retry hours later is still this event's delivery: it is parented to the same context, not
/// linked, so that the trace shows every attempt of the notification's deliveries, each with its
/// attempt number. A vendor's batch (Amplitude, Mixpanel) carries many events: its span has the
/// first event's context as parent and links to the others'.
///
/// Attributes: the app, the destination's id, the event type, the attempt, the HTTP status and
/// the outcome. Never the URL, the body, a header, a signature or a secret.
extension EventDispatcher {
    /// Runs `body`, one attempt to post `deliveries` (one request's worth), inside its span.
    func withDeliverySpan<T>(_ deliveries: [OutboxDelivery], app: AppRuntime, _ body: (any Span) async throws -> T) async throws -> T {
        let first = deliveries.first
        let parent = NotificationTracing.context(traceparent: first?.event.traceContext)
        return try await withSpan("storekeeper.webhook.deliver", context: parent, ofKind: .client) { span in
            if span.isRecording, let first {
                span.attributes["storekeeper.app"] = app.id
                span.attributes["storekeeper.destination"] = first.destination
                span.attributes["storekeeper.event_type"] = first.event.type.rawValue
                span.attributes["storekeeper.delivery_id"] = Int(first.id)
                span.attributes["storekeeper.attempt"] = first.attempts
                span.attributes["storekeeper.deliveries"] = deliveries.count
                for delivery in deliveries.dropFirst() {
                    guard let traceparent = delivery.event.traceContext else { continue }
                    span.addLink(SpanLink(context: NotificationTracing.context(traceparent: traceparent), attributes: [:]))
                }
            }
            do {
                return try await body(span)
            } catch {
                NotificationTracing.fail(span, error)
                throw error
            }
        }
    }

    /// Records an attempt's outcome on its span (and an error status when it did not deliver).
    static func describe(_ span: any Span, outcome: String, error: String?) {
        guard span.isRecording else { return }
        span.attributes["storekeeper.outcome"] = outcome
        if let error { NotificationTracing.fail(span, reason: error) }
    }
}
