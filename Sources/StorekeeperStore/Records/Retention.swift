import Foundation

/// The events recorded about one chain, as deciding new ones needs them: their keys, and the
/// instant before which retention removed the chain's events (``RetentionTable/events``).
public struct RecordedEvents: Sendable, Hashable, ExpressibleByArrayLiteral {
    /// The idempotency keys of the chain's events still in the log.
    public var keys: Set<String>
    /// Every event of the chain that occurred before this instant counts as recorded: some were
    /// removed by retention, and one revealed only now about so long ago is not sent.
    public var horizon: Date?

    public init(keys: Set<String> = [], horizon: Date? = nil) {
        self.keys = keys
        self.horizon = horizon
    }

    public init(arrayLiteral keys: String...) {
        self.init(keys: Set(keys))
    }

    /// Whether an event with `key` that occurred at `occurredAt` is recorded.
    public func contains(key: String, occurredAt: Date) -> Bool {
        keys.contains(key) || horizon.map { occurredAt < $0 } == true
    }
}

/// The tables whose old rows retention removes (docs/server.md, "Tables that grow"), each in
/// the order its rows were written, from where the previous pass stopped. The ledger, the
/// customers and the figures are kept for good.
public enum RetentionTable: String, Sendable, Hashable, CaseIterable, Codable {
    /// Customer events that occurred before the cutoff, with their deliveries and attempts; an
    /// event with a delivery still pending waits (and every event after it).
    case events
    /// Deliveries made before the cutoff and delivered, with their attempts; a dead one stays
    /// with its event (it can be sent again), and a pending one waits.
    case deliveries
    /// Delivery attempts made before the cutoff.
    case deliveryAttempts = "delivery_attempts"
    /// The bodies of processed notifications received before the cutoff (the inbox row stays:
    /// what Apple said is in the ledger); rows not processed keep theirs.
    case inboxBodies = "inbox_bodies"
    /// Operators' audit entries made before the cutoff.
    case audit
}

/// What one pass of retention over a table did.
public struct RetentionPass: Sendable, Hashable {
    /// The rows removed.
    public var removed: Int
    /// Whether the pass reached a row too young to remove, one that must wait, or the table's
    /// end (another pass now would remove nothing more).
    public var finished: Bool

    public init(removed: Int, finished: Bool) {
        self.removed = removed
        self.finished = finished
    }
}

extension RetentionPass {
    /// What a pass does with the rows after its table's mark, in id order (`limit` were asked
    /// for): it stops at the first row not `old` enough or that `waits`, steps over a row that
    /// is `kept`, and removes the others; returns them, the last id passed, and whether the pass
    /// is finished.
    static func walk<Row>(
        _ rows: [Row], limit: Int, from mark: Int64, id: (Row) -> Int64, old: (Row) -> Bool, waits: (Row) -> Bool, kept: (Row) -> Bool
    ) -> (doomed: [Row], passed: Int64, finished: Bool) {
        var doomed: [Row] = []
        var passed = mark
        for row in rows {
            guard old(row), !waits(row) else { return (doomed, passed, true) }
            if !kept(row) { doomed.append(row) }
            passed = id(row)
        }
        return (doomed, passed, rows.count < limit)
    }
}
