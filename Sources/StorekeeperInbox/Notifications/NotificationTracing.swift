import StorekeeperStore
import Tracing

/// One trace per notification, from Apple's POST to each webhook delivery (docs/observability.md).
///
/// The inbox and the outbox are asynchronous and survive restarts, so the trace context travels
/// in their rows as a W3C `traceparent` (``InboxNotification/traceContext``,
/// ``EventRecord/traceContext``): the work that picks a row up later, maybe in another process,
/// takes it as its parent. Everything here goes through the Tracing API's global instrument:
/// until the server bootstraps one (tracing is off by default) it is the no-op tracer, spans
/// cost nothing and no context is written.
///
/// What a span carries is chosen here: the app, Apple's notification UUID, type, subtype and
/// environment, an outcome, a delivery's HTTP status and destination id. Never a body, a
/// signed payload, a key, a secret, a signature or a URL.
package enum NotificationTracing {
    /// The `traceparent` of the current span (the task's context), or nil when tracing is off.
    package static func traceparent(of context: ServiceContext? = .current) -> String? {
        guard let context else { return nil }
        var carrier: [String: String] = [:]
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: TraceCarrier())
        return carrier["traceparent"]
    }

    /// The context a stored `traceparent` names, as the parent of the work that continues it
    /// (a top-level context when there is none).
    package static func context(traceparent: String?) -> ServiceContext {
        var context = ServiceContext.topLevel
        guard let traceparent, !traceparent.isEmpty else { return context }
        InstrumentationSystem.instrument.extract(["traceparent": traceparent], into: &context, using: TraceCarrier())
        return context
    }

    /// Describes the notification a span is about: its app and what its verified metadata says.
    package static func describe(_ span: any Span, appId: String, metadata: NotificationMetadata?) {
        guard span.isRecording else { return }
        span.attributes["storekeeper.app"] = appId
        if let uuid = metadata?.notificationUUID { span.attributes["apple.notification_uuid"] = uuid.lowercased() }
        if let type = metadata?.notificationType { span.attributes["apple.notification_type"] = type }
        if let subtype = metadata?.subtype { span.attributes["apple.notification_subtype"] = subtype }
        if let environment = metadata?.environment { span.attributes["apple.environment"] = environment }
    }

    /// Marks `span` failed by `error` with an error status and a short summary (`withSpan`
    /// records the error itself as it rethrows it).
    package static func fail(_ span: any Span, _ error: any Error) {
        span.setStatus(SpanStatus(code: .error, message: InboxText.summary(of: error)))
    }

    /// Marks `span` failed with `reason` (an outcome that is not an error thrown).
    package static func fail(_ span: any Span, reason: String) {
        span.setStatus(SpanStatus(code: .error, message: reason))
    }

    /// A string dictionary as the carrier of a `traceparent`.
    private struct TraceCarrier: Injector, Extractor {
        func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
            carrier[key] = value
        }

        func extract(key: String, from carrier: [String: String]) -> String? {
            carrier[key]
        }
    }
}
