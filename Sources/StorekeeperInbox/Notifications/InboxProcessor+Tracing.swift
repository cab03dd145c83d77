import StorekeeperStore
import Tracing

/// The inbox's part of a notification's trace (``NotificationTracing``): each row's processing
/// is a span whose parent is the POST that stored the row (its ``InboxNotification/traceContext``),
/// however much later and in whichever process it runs; its verification and the intake's
/// transaction are spans of the same trace. With tracing off these are no-op spans.
extension InboxProcessor {
    /// The processing span of each row of a run, by inbox id (ended by the caller).
    ///
    /// A row is processed long after the POST, maybe after a restart, yet it is the POST's work
    /// continued (the same notification, its one outcome), so the stored context is the parent,
    /// not a link.
    package static func processingSpans(for run: [InboxNotification]) -> [Int64: any Span] {
        var spans: [Int64: any Span] = [:]
        for row in run {
            guard let id = row.id else { continue }
            let span = startSpan(
                "storekeeper.inbox.process", context: NotificationTracing.context(traceparent: row.traceContext), ofKind: .consumer)
            NotificationTracing.describe(span, appId: row.appId, metadata: row.metadata)
            if span.isRecording {
                span.attributes["storekeeper.inbox_id"] = Int(id)
                span.attributes["storekeeper.attempt"] = row.attempts
            }
            spans[id] = span
        }
        return spans
    }

    /// `changeset` with its events carrying the context of `span`, so that their deliveries
    /// continue the notification's trace (nil when tracing is off: nothing is written).
    package static func traced(_ changeset: Changeset, by span: (any Span)?) -> Changeset {
        guard let span, let parent = NotificationTracing.traceparent(of: span.context) else { return changeset }
        var result = changeset
        for index in result.events.indices { result.events[index].traceContext = parent }
        return result
    }

    /// Runs `apply`, the one transaction that writes `rows`' changesets, inside a span in each
    /// row's trace (a run's rows commit together: each trace shows the shared transaction, with
    /// how many rows it wrote), and records each row's outcome on its processing span.
    package static func intakeTransaction<Result>(
        _ rows: [(row: InboxNotification, changeset: Changeset)], spans: [Int64: any Span], _ apply: () async throws -> Result
    ) async throws {
        let traced = rows.compactMap { row in row.row.id.flatMap { spans[$0] }.map { (row, $0) } }
        let transactions = traced.map { row, parent in
            let span = startSpan("storekeeper.intake.transaction", context: parent.context)
            NotificationTracing.describe(span, appId: row.row.appId, metadata: row.row.metadata)
            if span.isRecording {
                span.attributes["storekeeper.transaction_rows"] = rows.count
                span.attributes["storekeeper.events"] = row.changeset.events.count
            }
            return span
        }
        defer { for span in transactions { span.end() } }
        do {
            _ = try await apply()
        } catch {
            for span in transactions {
                span.recordError(error)
                NotificationTracing.fail(span, error)
            }
            throw error
        }
        for (row, span) in traced {
            let state = row.changeset.inboxOutcome?.state ?? .pending
            span.attributes["storekeeper.outcome"] = state.rawValue
            if state == .failed { NotificationTracing.fail(span, reason: row.changeset.inboxOutcome?.failureReason ?? "failed") }
        }
    }
}
