import Foundation
import StorekeeperStore
import SubscriptionEngine
import Testing

/// The contract every store passes, run in memory, on SQLite and (when configured) PostgreSQL.
@Suite("Store contract")
struct StoreContractTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func purchase(_ id: String, chain: String, signed: TimeInterval, expires: TimeInterval = 30 * 86400) -> PurchaseFact {
        PurchaseFact(
            transactionId: id, originalTransactionId: chain, productId: "pro.monthly", productType: .autoRenewable,
            subscriptionGroupIdentifier: "pro", purchaseDate: t0.addingTimeInterval(signed),
            expiresDate: t0.addingTimeInterval(signed + expires), signedDate: t0.addingTimeInterval(signed)
        )
    }

    @Test("migrations apply once and report the schema version", arguments: TestBackend.available)
    func migrationsAreIdempotent(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            #expect(try await store.schemaVersion() == SQLStore.latestSchemaVersion && SQLStore.latestSchemaVersion == 30)
            #expect(try await store.migrate() == [])
            try await store.ping()
        }
    }

    @Test("a server key is made once: concurrent first uses all get the one stored value", arguments: TestBackend.available)
    func serverKeys(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let values = try await withThrowingTaskGroup(of: String.self) { group in
                for index in 0..<8 {
                    group.addTask { try await store.serverKey(name: "state", proposed: "value-\(index)", now: Self.t0) }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(Set(values).count == 1)
            #expect(try await store.serverKey(name: "state", proposed: "later", now: Self.t0) == values.first)
            #expect(try await store.serverKey(name: "other", proposed: "second", now: Self.t0) == "second")
        }
    }

    @Test("dashboard users are created, then updated in place; emails match in any case", arguments: TestBackend.available)
    func dashboardUsers(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let first = DashboardUser(
                email: "Ops@Example.com", passwordHash: "scrypt$15$8$1$c2FsdA==$aGFzaA==", role: .viewer, apps: ["a"], createdAt: Self.t0,
                updatedAt: Self.t0)
            #expect(try await store.saveDashboardUser(first))
            var changed = first
            changed.role = .support
            changed.apps = nil
            changed.passwordHash = "scrypt$15$8$1$b3RoZXI=$aGFzaDI="
            changed.createdAt = Self.t0.addingTimeInterval(500)
            changed.updatedAt = Self.t0.addingTimeInterval(500)
            #expect(try await store.saveDashboardUser(changed) == false)
            let read = try #require(try await store.dashboardUser(email: "OPS@example.COM"))
            #expect(read.email == "ops@example.com" && read.role == .support && read.apps == nil)
            #expect(read.passwordHash == changed.passwordHash)
            #expect(read.createdAt == Self.t0 && read.updatedAt == Self.t0.addingTimeInterval(500))
            #expect(read.mayOpen(appId: "b"))
            try await store.saveDashboardUser(
                DashboardUser(email: "a@example.com", passwordHash: "x", role: .admin, apps: ["b", "c"], createdAt: Self.t0, updatedAt: Self.t0))
            let all = try await store.dashboardUsers()
            #expect(all.map(\.email) == ["a@example.com", "ops@example.com"])
            #expect(all.first?.apps == ["b", "c"] && all.first?.mayOpen(appId: "a") == false)
            #expect(try await store.dashboardUser(email: "nobody@example.com") == nil)
        }
    }

    @Test(
        "dashboard sessions are found by token hash until they end, end at sign-out, and ended ones are forgotten", arguments: TestBackend.available)
    func dashboardSessions(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let hour: TimeInterval = 3600
            try await store.createDashboardSession(
                DashboardSession(tokenHash: "aa", email: "Ops@Example.com", createdAt: Self.t0, expiresAt: Self.t0 + hour))
            try await store.createDashboardSession(
                DashboardSession(tokenHash: "bb", email: "ops@example.com", createdAt: Self.t0, expiresAt: Self.t0 + 12 * hour))
            let found = try #require(try await store.dashboardSession(tokenHash: "aa", now: Self.t0 + 60))
            #expect(found.email == "ops@example.com" && found.expiresAt == Self.t0 + hour)
            #expect(try await store.dashboardSession(tokenHash: "aa", now: Self.t0 + hour) == nil)
            #expect(try await store.dashboardSession(tokenHash: "cc", now: Self.t0) == nil)
            try await store.deleteDashboardSession(tokenHash: "bb")
            try await store.deleteDashboardSession(tokenHash: "bb")
            #expect(try await store.dashboardSession(tokenHash: "bb", now: Self.t0 + 60) == nil)
            // A session begun after "aa" ended removes it for good.
            try await store.createDashboardSession(
                DashboardSession(tokenHash: "dd", email: "a@example.com", createdAt: Self.t0 + 2 * hour, expiresAt: Self.t0 + 3 * hour))
            #expect(try await store.dashboardSession(tokenHash: "aa", now: Self.t0) == nil)
            #expect(try await store.dashboardSession(tokenHash: "dd", now: Self.t0 + 2 * hour) != nil)
        }
    }

    @Test("a user saved with a new password hash loses every session at once; saved with the same hash, keeps them", arguments: TestBackend.available)
    func passwordChangeEndsSessions(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let hour: TimeInterval = 3600
            var user = DashboardUser(email: "ops@example.com", passwordHash: "old", role: .admin, apps: nil, createdAt: Self.t0, updatedAt: Self.t0)
            try await store.saveDashboardUser(user)
            try await store.saveDashboardUser(
                DashboardUser(email: "other@example.com", passwordHash: "x", role: .viewer, apps: nil, createdAt: Self.t0, updatedAt: Self.t0))
            for (token, email) in [("aa", "ops@example.com"), ("bb", "Ops@Example.com"), ("cc", "other@example.com")] {
                try await store.createDashboardSession(
                    DashboardSession(tokenHash: token, email: email, createdAt: Self.t0, expiresAt: Self.t0 + hour))
            }
            user.role = .support
            try await store.saveDashboardUser(user)
            #expect(try await store.dashboardSession(tokenHash: "aa", now: Self.t0 + 60) != nil)
            user.passwordHash = "new"
            try await store.saveDashboardUser(user)
            #expect(try await store.dashboardSession(tokenHash: "aa", now: Self.t0 + 60) == nil)
            #expect(try await store.dashboardSession(tokenHash: "bb", now: Self.t0 + 60) == nil)
            #expect(try await store.dashboardSession(tokenHash: "cc", now: Self.t0 + 60) != nil)
        }
    }

    @Test("customers are listed newest first per app, and the audit log is read per customer", arguments: TestBackend.available)
    func recentCustomersAndCustomerAudit(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            for (index, customer) in ["ann", "bob", "cyd"].enumerated() {
                try await store.apply(
                    Changeset(
                        appId: "a", at: Self.t0 + Double(index), links: [CustomerLink(customerId: customer)],
                        audit: [AuditEntry(appId: "a", actor: "ops", action: .grant, customerId: customer, reason: "r\(index)", at: Self.t0)]))
            }
            try await store.apply(Changeset(appId: "b", at: Self.t0 + 10, links: [CustomerLink(customerId: "dan")]))
            try await store.apply(Changeset(appId: "a", at: Self.t0 + 20, links: [CustomerLink(customerId: "ann")]))
            #expect(try await store.recentCustomers(appId: "a", limit: 10) == ["cyd", "bob", "ann"])
            #expect(try await store.recentCustomers(appId: "a", limit: 2) == ["cyd", "bob"])
            #expect(try await store.recentCustomers(appId: "b", limit: 10) == ["dan"])
            let audit = try await store.auditEntries(appId: "a", customerId: "bob", limit: 10)
            #expect(audit.map(\.reason) == ["r1"])
            #expect(try await store.auditEntries(appId: "b", customerId: "bob", limit: 10).isEmpty)
        }
    }

    @Test("problems open once per cause, count repeats, resolve with their event, and open again afterwards", arguments: TestBackend.available)
    func problems(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let problem = Problem(
                appId: "a", kind: "dead_letters", causeKey: "dead_letters:hook", summary: "dead", evidence: ["k": "v"],
                amount: Decimal(string: "9.99"),
                currency: "USD", openedAt: Self.t0)
            let alert = EventRecord(appId: "a", type: "problem.opened", occurredAt: Self.t0, idempotencyKey: "event:p1")
            #expect(try await store.openProblem(problem, event: alert))
            #expect(try await store.openProblem(problem, event: alert) == false)
            let open = try await store.problems(appId: "a", status: .open, limit: 10)
            #expect(
                open.count == 1 && open.first?.occurrences == 2 && open.first?.amount == Decimal(string: "9.99") && open.first?.evidence == ["k": "v"]
            )
            #expect(try await store.problems(appId: "b", status: nil, limit: 10).isEmpty)
            let resolved = try await store.resolveProblem(appId: "a", causeKey: "dead_letters:hook", at: Self.t0 + 60, by: "automatic") { _ in
                EventRecord(appId: "a", type: "problem.resolved", occurredAt: Self.t0 + 60, idempotencyKey: "event:p1r")
            }
            #expect(resolved?.status == .resolved && resolved?.resolvedBy == "automatic")
            #expect(try await store.resolveProblem(appId: "a", causeKey: "dead_letters:hook", at: Self.t0, by: "x") { _ in nil } == nil)
            #expect(try await store.openProblem(problem, event: nil))
            let all = try await store.problems(appId: "a", status: nil, limit: 10)
            #expect(all.map(\.status) == [.open, .resolved])
            let id = try #require(all.first?.id)
            #expect(try await store.resolveProblem(appId: "b", id: id, at: Self.t0, by: "x") { _ in nil } == nil)
            #expect(try await store.resolveProblem(appId: "a", id: id, at: Self.t0, by: "ops") { _ in nil }?.resolvedBy == "ops")
        }
    }

    @Test(
        "the outbox: deliveries written with their events, leased once, finished with their attempts, replayed, held while disabled",
        arguments: TestBackend.available)
    func outbox(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            var event = EventRecord(appId: "a", type: "subscription.renewed", occurredAt: Self.t0, idempotencyKey: "event:e1")
            event.destinations = ["hook", "slack"]
            try await store.apply(Changeset(appId: "a", at: Self.t0, events: [event, event]))
            let leased = try await store.leaseDeliveries(limit: 10, owner: "d1", now: Self.t0, leaseUntil: Self.t0 + 60)
            #expect(
                leased.map(\.destination).sorted() == ["hook", "slack"]
                    && leased.allSatisfy { $0.attempts == 1 && $0.event.type == "subscription.renewed" })
            #expect(try await store.leaseDeliveries(limit: 10, owner: "d2", now: Self.t0, leaseUntil: Self.t0 + 60).isEmpty)
            let hook = try #require(leased.first { $0.destination == "hook" })
            let slack = try #require(leased.first { $0.destination == "slack" })
            try await store.finishDelivery(
                id: hook.id, owner: "d1",
                attempt: DeliveryAttempt(deliveryId: hook.id, at: Self.t0, status: 500, error: "HTTP 500", durationMilliseconds: 3),
                outcome: .retry(at: Self.t0 + 5))
            try await store.finishDelivery(
                id: slack.id, owner: "d2",
                attempt: DeliveryAttempt(deliveryId: slack.id, at: Self.t0, status: 200, error: nil, durationMilliseconds: 1),
                outcome: .delivered)  // not its lease: ignored
            #expect(try await store.leaseDeliveries(limit: 10, owner: "d1", now: Self.t0 + 4, leaseUntil: Self.t0 + 70).isEmpty)
            let again = try await store.leaseDeliveries(limit: 10, owner: "d1", now: Self.t0 + 61, leaseUntil: Self.t0 + 120)
            #expect(again.map(\.destination).sorted() == ["hook", "slack"])
            try await store.finishDelivery(
                id: hook.id, owner: "d1",
                attempt: DeliveryAttempt(deliveryId: hook.id, at: Self.t0 + 61, status: 410, error: "gone", durationMilliseconds: 2),
                outcome: .dead)
            #expect(try await store.attempts(deliveryId: hook.id).map(\.status) == [500, 410])
            try await store.disableDestination(appId: "a", destination: "hook", reason: "410", at: Self.t0)
            #expect(try await store.disabledDestinations(appId: "a") == ["hook": "410"])
            #expect(try await store.replayDeliveries(appId: "a", destination: "hook", id: nil, now: Self.t0 + 200) == 1)
            // The disabled destination waits; the other's lease ran out, so it is leased again.
            #expect(
                try await store.leaseDeliveries(limit: 10, owner: "d3", now: Self.t0 + 200, leaseUntil: Self.t0 + 260).map(\.destination) == ["slack"]
            )
            try await store.enableDestination(appId: "a", destination: "hook")
            let replayed = try await store.leaseDeliveries(limit: 10, owner: "d3", now: Self.t0 + 200, leaseUntil: Self.t0 + 260)
            #expect(replayed.map(\.destination) == ["hook"] && replayed.first?.attempts == 1)
            #expect(try await store.deliveryCounts(appId: "a")["hook"]?[.pending] == 1)
            #expect(try await store.deliveries(appId: "a", destination: "hook", state: nil, limit: 5).count == 1)
            #expect(try await store.delivery(appId: "b", id: hook.id) == nil)
        }
    }

    @Test("apps are saved idempotently and updated", arguments: TestBackend.available)
    func appsRoundTrip(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            try await store.saveApp(AppRecord(id: "a", bundleId: "com.example.a", createdAt: Self.t0))
            try await store.saveApp(AppRecord(id: "a", bundleId: "com.example.a2", createdAt: Self.t0))
            try await store.saveApp(AppRecord(id: "b", bundleId: "com.example.b", createdAt: Self.t0))
            let apps = try await store.apps()
            #expect(apps.map(\.id) == ["a", "b"])
            #expect(apps.first?.bundleId == "com.example.a2")
            #expect(apps.first?.createdAt == Self.t0)
        }
    }

    @Test("the ledger is idempotent on facts and keeps later facts about the same transaction", arguments: TestBackend.available)
    func ledgerIdempotency(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let first = Self.purchase("t1", chain: "t1", signed: 0)
            var refunded = first
            refunded.revocation = Revocation(date: Self.t0.addingTimeInterval(100), kind: .refund)
            refunded.signedDate = Self.t0.addingTimeInterval(100)
            let changes = Changeset(
                appId: "a", at: Self.t0, links: [CustomerLink(customerId: "c1", aliases: [.originalTransactionId("t1")])],
                entries: [LedgerEntry(appId: "a", fact: .purchase(first), source: "storeKit2", raw: "jws-1", recordedAt: Self.t0)]
            )
            #expect(try await store.apply(changes).newEntries == 1)
            #expect(try await store.apply(changes).newEntries == 0)
            let later = Changeset(
                appId: "a", at: Self.t0,
                entries: [
                    LedgerEntry(appId: "a", fact: .purchase(refunded), source: "notificationV2", raw: "jws-2", recordedAt: Self.t0)
                ])
            #expect(try await store.apply(later).newEntries == 1)
            let entries = try await store.ledger(appId: "a", customerId: "c1")
            #expect(entries.count == 2)
            #expect(entries.map(\.raw) == ["jws-1", "jws-2"])
            let history = PurchaseHistory(ledger: entries)
            #expect(history.purchases["t1"]?.revocation?.kind == .refund)
            #expect(try await store.ledger(appId: "a", originalTransactionId: "t1").count == 2)
            #expect(try await store.ledger(appId: "other", customerId: "c1").isEmpty)

            // The ledger's version tells a reader what it has not seen.
            let version = try await store.ledgerVersion(appId: "a")
            let all = try await store.ledger(appId: "a")
            #expect(version.count == 2 && version.lastId == all.last?.id)
            #expect(try await store.ledger(appId: "a", after: all[0].id ?? 0, through: version.lastId).map(\.raw) == ["jws-2"])
            #expect(try await store.ledger(appId: "a", after: version.lastId, through: version.lastId + 10).isEmpty)
            #expect(try await store.ledgerVersion(appId: "other") == LedgerVersion(count: 0, lastId: 0))

            // Chains recorded since an instant: the list, and whether there is any.
            #expect(try await store.knownChains(appId: "a", recordedSince: Self.t0) == ["t1"])
            #expect(try await store.hasChains(appId: "a", recordedSince: Self.t0))
            #expect(try await !store.hasChains(appId: "a", recordedSince: Self.t0.addingTimeInterval(1)))
            #expect(try await !store.hasChains(appId: "other", recordedSince: .distantPast))
        }
    }

    @Test("an alias owned by another customer is refused and the whole changeset rolls back", arguments: TestBackend.available)
    func aliasConflictRollsBack(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    links: [
                        CustomerLink(customerId: "alice", aliases: [.originalTransactionId("t1"), .appAccountToken("ABC-1")])
                    ]))
            let stolen = Changeset(
                appId: "a", at: Self.t0, links: [CustomerLink(customerId: "mallory", aliases: [.originalTransactionId("t1")])],
                entries: [
                    LedgerEntry(appId: "a", fact: .purchase(Self.purchase("t1", chain: "t1", signed: 0)), source: "storeKit2", recordedAt: Self.t0)
                ]
            )
            await #expect { try await store.apply(stolen) } throws: { ($0 as? StoreError)?.code == .aliasConflict }
            #expect(try await store.ledger(appId: "a", originalTransactionId: "t1").isEmpty)
            #expect(try await store.customer(appId: "a", alias: .appAccountToken("abc-1")) == "alice")
            #expect(try await store.customer(appId: "b", alias: .originalTransactionId("t1")) == nil)
            #expect(try await store.customerExists(appId: "a", customerId: "alice"))
            #expect(try await store.aliases(appId: "a", customerId: "alice").count == 2)
            // The same alias in another app is another tenant's business.
            try await store.apply(
                Changeset(
                    appId: "b", at: Self.t0,
                    links: [
                        CustomerLink(customerId: "mallory", aliases: [.originalTransactionId("t1")])
                    ]))
            #expect(try await store.customer(appId: "b", alias: .originalTransactionId("t1")) == "mallory")
        }
    }

    @Test(
        "customer ids are exact bytes: NFC and NFD spellings, Å and the angstrom sign, are different customers",
        arguments: TestBackend.available)
    func customerIdsAreBytes(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            for (stored, other, chain) in [("zoe\u{301}", "zo\u{E9}", "t1"), ("\u{212B}ngstr\u{F6}m", "\u{C5}ngstr\u{F6}m", "t2")] {
                #expect(stored == other)  // what Swift's String == says: the trap this rule avoids
                let entry = LedgerEntry(
                    appId: "a", fact: .purchase(Self.purchase(chain, chain: chain, signed: 0)), customerId: stored, source: "storeKit2",
                    recordedAt: Self.t0)
                let audit = AuditEntry(appId: "a", actor: "ops", action: .grant, customerId: stored, reason: "gift", at: Self.t0)
                try await store.apply(
                    Changeset(
                        appId: "a", at: Self.t0, links: [CustomerLink(customerId: stored, aliases: [.originalTransactionId(chain)])],
                        entries: [entry], audit: [audit]))
                #expect(try await store.customerExists(appId: "a", customerId: stored))
                #expect(try await !store.customerExists(appId: "a", customerId: other))
                #expect(try await store.ledger(appId: "a", customerId: stored).count == 1)
                #expect(try await store.ledger(appId: "a", customerId: other).isEmpty)
                #expect(try await store.aliases(appId: "a", customerId: other).isEmpty)
                #expect(try await store.auditEntries(appId: "a", customerId: other, limit: 10).isEmpty)
                let owner = try #require(try await store.customer(appId: "a", alias: .originalTransactionId(chain)))
                #expect(CustomerId.same(owner, stored) && !CustomerId.same(owner, other))
                // The other spelling cannot take the stored customer's chain.
                let taken = Changeset(
                    appId: "a", at: Self.t0, links: [CustomerLink(customerId: other, aliases: [.originalTransactionId(chain)])])
                await #expect { try await store.apply(taken) } throws: { ($0 as? StoreError)?.code == .aliasConflict }
            }
        }
    }

    @Test(
        "changesets applied together are written in order in one transaction: all of them, or none when one is refused",
        arguments: TestBackend.available)
    func batches(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            func entry(_ id: String, chain: String, signed: TimeInterval) -> LedgerEntry {
                LedgerEntry(
                    appId: "a", fact: .purchase(Self.purchase(id, chain: chain, signed: signed)), source: "notificationV2", recordedAt: Self.t0)
            }
            #expect(try await store.apply([Changeset]()).isEmpty)
            let results = try await store.apply([
                Changeset(
                    appId: "a", at: Self.t0, links: [CustomerLink(customerId: "alice", aliases: [.originalTransactionId("t1")])],
                    entries: [entry("t1", chain: "t1", signed: 0)]),
                // The same fact again, in the same batch: already there by then.
                Changeset(appId: "a", at: Self.t0, entries: [entry("t1", chain: "t1", signed: 0), entry("t2", chain: "t1", signed: 10)]),
                Changeset(appId: "b", at: Self.t0, entries: [entry("t1", chain: "t1", signed: 0)]),
            ])
            #expect(results.map(\.newEntries) == [1, 1, 1])
            #expect(try await store.ledger(appId: "a", customerId: "alice").count == 2)
            // Events: one repeated across the batch is new once, with one delivery per destination.
            func event(_ key: String) -> EventRecord {
                var event = EventRecord(
                    appId: "a", originalTransactionId: "t1", type: .notificationProcessed, occurredAt: Self.t0, idempotencyKey: key)
                event.destinations = ["hook", "slack"]
                return event
            }
            var withJob = Changeset(appId: "a", at: Self.t0, events: [event("e1"), event("e2")])
            withJob.jobs = [JobRecord(appId: "a", kind: "refresh", payload: "{}", runAt: Self.t0, idempotencyKey: "j1")]
            let eventResults = try await store.apply([
                Changeset(appId: "a", at: Self.t0, events: [event("e1")]), withJob, withJob,
            ])
            #expect(eventResults.map(\.newEvents) == [1, 1, 0])
            #expect(
                try await store.deliveries(appId: "a", destination: "hook", state: nil, limit: 10).map(\.event.idempotencyKey).sorted() == [
                    "e1", "e2",
                ])
            #expect(try await store.deliveries(appId: "a", destination: "slack", state: nil, limit: 10).count == 2)
            #expect(try await store.eventKeys(appId: "a", originalTransactionId: "t1") == ["e1", "e2"])
            // Inbox outcomes written together, each with its own values (and none without metadata).
            let first = try await store.receive(InboxContractTests.notification("batch-1")).id
            let second = try await store.receive(InboxContractTests.notification("batch-2")).id
            let third = try await store.receive(InboxContractTests.notification("batch-3")).id
            try await store.apply([
                Changeset(
                    appId: "a", at: Self.t0,
                    inboxOutcome: InboxOutcome(
                        inboxId: first, state: .processed,
                        metadata: NotificationMetadata(notificationUUID: "U-1", notificationType: "DID_RENEW", signedDate: Self.t0),
                        processedAt: Self.t0)),
                Changeset(
                    appId: "a", at: Self.t0,
                    inboxOutcome: InboxOutcome(inboxId: second, state: .rejected, failureReason: "bad", processedAt: Self.t0 + 1)),
                // Another app's changeset cannot touch this app's row.
                Changeset(appId: "b", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: third, state: .processed, processedAt: Self.t0)),
            ])
            let processed = try #require(try await store.notification(id: first))
            #expect(processed.state == .processed && processed.metadata?.notificationUUID == "u-1")
            #expect(processed.metadata?.notificationType == "DID_RENEW" && processed.metadata?.signedDate == Self.t0)
            let rejected = try #require(try await store.notification(id: second))
            #expect(rejected.state == .rejected && rejected.failureReason == "bad" && rejected.metadata?.signedDate == nil)
            #expect(try await store.notification(id: third)?.state == .pending)
            // The second changeset links an alias the first gives another customer: nothing is written.
            let refused: [Changeset] = [
                Changeset(
                    appId: "a", at: Self.t0, links: [CustomerLink(customerId: "bob", aliases: [.originalTransactionId("t9")])],
                    entries: [entry("t9", chain: "t9", signed: 0)]),
                Changeset(appId: "a", at: Self.t0, links: [CustomerLink(customerId: "carol", aliases: [.originalTransactionId("t9")])]),
            ]
            await #expect { try await store.apply(refused) } throws: { ($0 as? StoreError)?.code == .aliasConflict }
            #expect(try await store.ledger(appId: "a", originalTransactionId: "t9").isEmpty)
            #expect(try await store.customer(appId: "a", alias: .originalTransactionId("t9")) == nil)
            #expect(try await !store.customerExists(appId: "a", customerId: "bob"))
            // Each alone goes through, as the processor does when a shared transaction fails.
            #expect(try await store.apply(refused[0]).newEntries == 1)
            await #expect { try await store.apply(refused[1]) } throws: { ($0 as? StoreError)?.code == .aliasConflict }
        }
    }

    @Test("many chains, aliases and notification uuids read at once answer as one at a time", arguments: TestBackend.available)
    func batchReads(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            func entry(_ fact: LedgerFact) -> LedgerEntry {
                LedgerEntry(appId: "a", fact: fact, source: "notificationV2", raw: "signed-payload", recordedAt: Self.t0)
            }
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    links: [CustomerLink(customerId: "alice", aliases: [.originalTransactionId("c1"), .appAccountToken("AAA-1")])],
                    entries: [
                        entry(.purchase(Self.purchase("c1", chain: "c1", signed: 0))),
                        entry(.purchase(Self.purchase("c1-2", chain: "c1", signed: 100))),
                        entry(.purchase(Self.purchase("c2", chain: "c2", signed: 50))),
                        entry(.revocation(LedgerFact.ManualRevocation(transactionId: "c1-2", date: Self.t0, reason: "test"))),
                    ],
                    events: [
                        EventRecord(appId: "a", originalTransactionId: "c1", type: .notificationProcessed, occurredAt: Self.t0, idempotencyKey: "k1"),
                        EventRecord(appId: "a", originalTransactionId: "c2", type: .notificationProcessed, occurredAt: Self.t0, idempotencyKey: "k2"),
                    ]))
            let chains = ["c1", "c2", "c3"]
            let ledgers = try await store.ledgers(appId: "a", originalTransactionIds: chains)
            for chain in chains {
                let one = try await store.ledger(appId: "a", originalTransactionId: chain)
                #expect((ledgers[chain] ?? []).map(\.key) == one.map(\.key), "\(chain)")
                #expect(one.allSatisfy { $0.raw == "signed-payload" })
            }
            #expect(ledgers["c1"]?.count == 3)
            #expect(ledgers.values.joined().allSatisfy { $0.raw == nil })
            #expect(ledgers["c3"] == nil)
            #expect(try await store.ledgers(appId: "b", originalTransactionIds: chains).isEmpty)
            let keys = try await store.eventKeys(appId: "a", originalTransactionIds: chains)
            #expect(keys == ["c1": ["k1"], "c2": ["k2"]])
            let owners = try await store.customers(
                appId: "a", aliases: [.originalTransactionId("c1"), .originalTransactionId("c2"), .appAccountToken("aaa-1")])
            #expect(owners == [.originalTransactionId("c1"): "alice", .appAccountToken("aaa-1"): "alice"])
            // Processed rows by notification uuid, whatever its case.
            let id = try await store.receive(InboxContractTests.notification("u1")).id
            #expect(try await store.processedNotifications(appId: "a", notificationUUIDs: ["ABC"]).isEmpty)
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    inboxOutcome: InboxOutcome(
                        inboxId: id, state: .processed, metadata: NotificationMetadata(notificationUUID: "ABC"), processedAt: Self.t0)))
            #expect(try await store.processedNotifications(appId: "a", notificationUUIDs: ["abc", "def"]) == ["abc": [id]])
            #expect(try await store.processedNotifications(appId: "b", notificationUUIDs: ["abc"]).isEmpty)
        }
    }

    @Test("facts recorded before the chain was linked belong to the customer once it is", arguments: TestBackend.available)
    func lateLinking(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    entries: [
                        LedgerEntry(
                            appId: "a", fact: .purchase(Self.purchase("t2", chain: "t1", signed: 10)), source: "notificationV2", recordedAt: Self.t0),
                        LedgerEntry(
                            appId: "a", fact: .renewal(RenewalFact(originalTransactionId: "t1", willAutoRenew: false, signedDate: Self.t0)),
                            source: "notificationV2", recordedAt: Self.t0),
                    ],
                    events: [
                        EventRecord(
                            appId: "a", originalTransactionId: "t1", type: "notification.processed", occurredAt: Self.t0, idempotencyKey: "n1")
                    ]))
            #expect(try await store.ledger(appId: "a", customerId: "c").isEmpty)
            try await store.apply(Changeset(appId: "a", at: Self.t0, links: [CustomerLink(customerId: "c", aliases: [.originalTransactionId("t1")])]))
            #expect(try await store.ledger(appId: "a", customerId: "c").count == 2)
            #expect(try await store.events(appId: "a", customerId: "c", limit: 10).map(\.type) == ["notification.processed"])
        }
    }

    @Test("manual grants and revocations round-trip through the ledger with an audit entry", arguments: TestBackend.available)
    func grantsAndAudit(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let grant = PurchaseFact.manualGrant(id: "grant-1", productId: "pro.lifetime", startDate: Self.t0, endDate: nil)
            let revoke = LedgerFact.ManualRevocation(transactionId: "grant-1", date: Self.t0.addingTimeInterval(60), reason: "chargeback")
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0, links: [CustomerLink(customerId: "c")],
                    entries: [
                        LedgerEntry(appId: "a", fact: .purchase(grant), customerId: "c", source: "manual", recordedAt: Self.t0),
                        LedgerEntry(appId: "a", fact: .revocation(revoke), customerId: "c", source: "manual", recordedAt: Self.t0),
                    ],
                    audit: [AuditEntry(appId: "a", actor: "key:abcd", action: .grant, customerId: "c", reason: "support", at: Self.t0)]
                ))
            let history = PurchaseHistory(ledger: try await store.ledger(appId: "a", customerId: "c"))
            #expect(history.manualRevocations["grant-1"]?.date == Self.t0.addingTimeInterval(60))
            let audit = try await store.auditEntries(appId: "a", limit: 10)
            #expect(audit.map(\.action) == ["grant"])
            #expect(audit.first?.reason == "support")
            #expect(try await store.auditEntries(appId: "b", limit: 10).isEmpty)
        }
    }
}
