import Foundation
import StorekeeperStore
import Testing

/// Retention (``RetentionStore``) on every store: each table's old rows go in the order they
/// were written, from where the previous pass stopped; a row that must wait stops the pass, a
/// row that stays is stepped over; events leave a horizon so that they are not derived again.
@Suite("Retention contract")
struct RetentionContractTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    /// An instant in whole milliseconds, as the store keeps it.
    static func ms(_ date: Date?) -> Int64? { date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } }

    /// Whether `recorded` holds exactly `keys` and its horizon is `horizon` (ms after t0).
    static func same(_ recorded: RecordedEvents?, keys: Set<String>, horizon: Int64?) -> Bool {
        recorded?.keys == keys && ms(recorded?.horizon) == horizon.map { ms(t0)! + $0 }
    }

    static func event(_ key: String, chain: String?, at offset: TimeInterval, to destinations: [String] = []) -> EventRecord {
        var event = EventRecord(
            appId: "a", originalTransactionId: chain, type: "subscription.renewed", occurredAt: t0 + offset, idempotencyKey: key)
        event.destinations = destinations
        return event
    }

    /// Leases every due delivery and finishes the one of `key` as `outcome`.
    static func finish(_ key: String, _ outcome: DeliveryOutcome, at offset: TimeInterval, _ store: any StorekeeperStorage) async throws -> Int64 {
        let leased = try await store.leaseDeliveries(limit: 100, owner: "d", now: t0 + offset, leaseUntil: t0 + offset + 1)
        let delivery = try #require(leased.first { $0.event.idempotencyKey == key })
        try await store.finishDelivery(
            id: delivery.id, owner: "d",
            attempt: DeliveryAttempt(deliveryId: delivery.id, at: t0 + offset, status: 200, error: nil, durationMilliseconds: 1),
            outcome: outcome)
        return delivery.id
    }

    @Test(
        "events go oldest first with their deliveries; one with a delivery pending waits; each chain keeps a horizon",
        arguments: TestBackend.available)
    func events(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    events: [
                        Self.event("e1", chain: "c1", at: 0, to: ["hook"]), Self.event("e2", chain: "c1", at: 10),
                        Self.event("e3", chain: "c2", at: 20, to: ["hook"]), Self.event("e4", chain: "c1", at: 1000),
                    ]))
            let delivered = try await Self.finish("e1", .delivered, at: 1, store)
            #expect(try await store.attempts(deliveryId: delivered).count == 1)

            let first = try await store.pruneRows(.events, before: Self.t0 + 500, limit: 10)
            #expect(first == RetentionPass(removed: 2, finished: true))
            #expect(Self.same(try await store.eventKeys(appId: "a", originalTransactionId: "c1"), keys: ["e4"], horizon: 10_001))
            #expect(try await store.eventKeys(appId: "a", originalTransactionId: "c2") == ["e3"])
            #expect(try await store.delivery(appId: "a", id: delivered) == nil)
            #expect(try await store.attempts(deliveryId: delivered).isEmpty)
            // Before the horizon everything counts as recorded; the horizon is the app's alone.
            let c1 = try await store.eventKeys(appId: "a", originalTransactionId: "c1")
            #expect(c1.contains(key: "anything", occurredAt: Self.t0 + 10) && !c1.contains(key: "anything", occurredAt: Self.t0 + 11))
            #expect(try await store.eventKeys(appId: "b", originalTransactionId: "c1") == [])
            // The pending delivery held e3 back (and e4 after it, though too young anyway).
            #expect(try await store.pruneRows(.events, before: Self.t0 + 500, limit: 10) == RetentionPass(removed: 0, finished: true))

            let dead = try await Self.finish("e3", .dead, at: 5, store)
            #expect(try await store.pruneRows(.events, before: Self.t0 + 500, limit: 10) == RetentionPass(removed: 1, finished: true))
            #expect(try await store.delivery(appId: "a", id: dead) == nil)
            let keys = try await store.eventKeys(appId: "a", originalTransactionIds: ["c1", "c2", "c3"])
            #expect(keys.count == 2 && Self.same(keys["c1"], keys: ["e4"], horizon: 10_001) && Self.same(keys["c2"], keys: [], horizon: 20_001))
            #expect(try await store.pruneRows(.events, before: Self.t0 + 2000, limit: 10) == RetentionPass(removed: 1, finished: true))
            #expect(Self.same(try await store.eventKeys(appId: "a", originalTransactionId: "c1"), keys: [], horizon: 1_000_001))
            // An event recorded after the pass, about a time before the horizon, is kept until its turn.
            try await store.apply(Changeset(appId: "a", at: Self.t0, events: [Self.event("late", chain: "c1", at: 5)]))
            #expect(try await store.eventKeys(appId: "a", originalTransactionId: "c1").keys == ["late"])
        }
    }

    @Test(
        "deliveries, attempts, audit entries and bodies: the old go a batch at a time; a dead delivery and a body not processed stay",
        arguments: TestBackend.available)
    func tables(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    events: [Self.event("x1", chain: "c", at: 0, to: ["hook"]), Self.event("x2", chain: "c", at: 0, to: ["hook"])],
                    audit: [
                        AuditEntry(appId: "a", actor: "ops", action: .grant, at: Self.t0),
                        AuditEntry(appId: "a", actor: "ops", action: .grant, at: Self.t0 + 10),
                        AuditEntry(appId: "a", actor: "ops", action: .grant, at: Self.t0 + 1000),
                    ]))
            try await store.apply(
                Changeset(appId: "a", at: Self.t0 + 100, events: [Self.event("x3", chain: "c", at: 100, to: ["hook"])]))
            let delivered = try await Self.finish("x1", .delivered, at: 1, store)
            let dead = try await Self.finish("x2", .dead, at: 5, store)

            // Deliveries: x1 goes with its attempt, the dead x2 is stepped over, x3 is too young.
            #expect(try await store.pruneRows(.deliveries, before: Self.t0 + 50, limit: 10) == RetentionPass(removed: 1, finished: true))
            #expect(try await store.delivery(appId: "a", id: delivered) == nil)
            #expect(try await store.attempts(deliveryId: delivered).isEmpty)
            #expect(try await store.deliveries(appId: "a", destination: "hook", state: nil, limit: 10).count == 2)
            // x3 is old enough now but still pending: it waits.
            #expect(try await store.pruneRows(.deliveries, before: Self.t0 + 500, limit: 10) == RetentionPass(removed: 0, finished: true))
            #expect(try await store.eventKeys(appId: "a", originalTransactionId: "c").keys == ["x1", "x2", "x3"])

            // Attempts: the dead delivery's goes; the delivery stays.
            #expect(try await store.pruneRows(.deliveryAttempts, before: Self.t0 + 50, limit: 10) == RetentionPass(removed: 1, finished: true))
            #expect(try await store.attempts(deliveryId: dead).isEmpty)
            #expect(try await store.delivery(appId: "a", id: dead)?.state == .dead)

            // Audit entries, one per pass.
            #expect(try await store.pruneRows(.audit, before: Self.t0 + 500, limit: 1) == RetentionPass(removed: 1, finished: false))
            #expect(try await store.pruneRows(.audit, before: Self.t0 + 500, limit: 1) == RetentionPass(removed: 1, finished: false))
            #expect(try await store.pruneRows(.audit, before: Self.t0 + 500, limit: 1) == RetentionPass(removed: 0, finished: true))
            #expect(try await store.auditEntries(appId: "a", limit: 10).map(\.at) == [Self.t0 + 1000])

            // Bodies: a processed row's goes (the row stays), a pending one's stays, a young one's stays.
            var ids: [Int64] = []
            for (name, offset) in [("old", 0.0), ("waiting", 1), ("young", 1000)] {
                var notification = InboxContractTests.notification(name)
                notification.receivedAt = Self.t0 + offset
                ids.append(try await store.receive(notification).id)
            }
            for id in [ids[0], ids[2]] {
                try await store.apply(
                    Changeset(appId: "a", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: id, state: .processed, processedAt: Self.t0)))
            }
            #expect(try await store.pruneRows(.inboxBodies, before: Self.t0 + 500, limit: 10) == RetentionPass(removed: 1, finished: true))
            #expect(try await store.notification(id: ids[0])?.body == "")
            #expect(try await store.notification(id: ids[0])?.state == .processed)
            #expect(try await store.notification(id: ids[1])?.body == "waiting")
            #expect(try await store.notification(id: ids[2])?.body == "young")
            #expect(try await store.pruneRows(.inboxBodies, before: Self.t0 + 5000, limit: 10) == RetentionPass(removed: 1, finished: true))
            #expect(try await store.notification(id: ids[2])?.body == "")
            #expect(try await store.notification(id: ids[1])?.body == "waiting")
        }
    }
}
