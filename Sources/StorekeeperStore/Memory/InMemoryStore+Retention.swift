import Foundation

extension InMemoryStore {
    /// A row a pass looks at: its id, when it was written or happened, whether it must wait
    /// (and every row after it), whether it stays.
    private typealias Candidate = (id: Int64, at: Date, waits: Bool, kept: Bool)

    public func pruneRows(_ table: RetentionTable, before cutoff: Date, limit: Int) async throws -> RetentionPass {
        let limit = max(1, min(limit, 5000))
        let mark = retentionMarks[table] ?? 0
        let rows = Array(candidates(table, after: mark).prefix(limit))
        let (doomed, passed, finished) = RetentionPass.walk(
            rows, limit: limit, from: mark, id: \.id, old: { $0.at < cutoff }, waits: \.waits, kept: \.kept)
        remove(Set(doomed.map(\.id)), of: table)
        retentionMarks[table] = max(mark, passed)
        return RetentionPass(removed: doomed.count, finished: finished)
    }

    /// The rows of `table` after id `mark`, in id order.
    private func candidates(_ table: RetentionTable, after mark: Int64) -> [Candidate] {
        switch table {
        case .events:
            let pending = Set(deliveryRows.values.filter { $0.delivery.state == .pending }.compactMap(\.delivery.event.id))
            return eventRows.compactMap { row in
                guard let id = row.id, id > mark else { return nil }
                return (id, row.occurredAt, pending.contains(id), false)
            }
        case .deliveries:
            return deliveryRows.keys.filter { $0 > mark }.sorted().compactMap { id in
                deliveryRows[id].map { (id, $0.delivery.createdAt, $0.delivery.state == .pending, $0.delivery.state == .dead) }
            }
        case .deliveryAttempts:
            // Attempts have no id here: the oldest first, numbered after the mark.
            let attempts = deliveryAttempts.values.joined().sorted { $0.at < $1.at }
            return attempts.enumerated().map { (mark + Int64($0.offset) + 1, $0.element.at, false, false) }
        case .inboxBodies:
            return inbox.keys.filter { $0 > mark }.sorted().compactMap { id in
                inbox[id].map { (id, $0.notification.receivedAt, false, $0.notification.state != .processed) }
            }
        case .audit:
            return auditRows.compactMap { row in row.id.flatMap { $0 > mark ? ($0, row.at, false, false) : nil } }
        }
    }

    private func remove(_ ids: Set<Int64>, of table: RetentionTable) {
        guard !ids.isEmpty else { return }
        switch table {
        case .events:
            for row in eventRows where ids.contains(row.id ?? 0) {
                eventKeys.remove(AppKey(appId: row.appId, key: row.idempotencyKey))
                guard let chain = row.originalTransactionId else { continue }
                let key = AppKey(appId: row.appId, key: chain)
                let before = row.occurredAt.addingTimeInterval(0.001)
                eventHorizons[key] = max(eventHorizons[key] ?? .distantPast, before)
            }
            eventRows.removeAll { ids.contains($0.id ?? 0) }
            for (id, row) in deliveryRows where ids.contains(row.delivery.event.id ?? 0) {
                deliveryRows[id] = nil
                deliveryAttempts[id] = nil
            }
        case .deliveries:
            for id in ids {
                deliveryRows[id] = nil
                deliveryAttempts[id] = nil
            }
        case .deliveryAttempts:
            // The oldest `ids.count` attempts (numbered after the mark by ``candidates``).
            let doomed = deliveryAttempts.values.joined().sorted { $0.at < $1.at }.prefix(ids.count)
            for attempt in doomed { deliveryAttempts[attempt.deliveryId]?.removeAll { $0 == attempt } }
        case .inboxBodies:
            for id in ids { inbox[id]?.notification.body = "" }
        case .audit:
            auditRows.removeAll { ids.contains($0.id ?? 0) }
        }
    }
}
