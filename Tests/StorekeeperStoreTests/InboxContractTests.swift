import Foundation
import SubscriptionEngine
import Testing

@testable import StorekeeperStore

@Suite("Inbox and jobs contract")
struct InboxContractTests {
    static let t0 = Date(timeIntervalSince1970: 1_700_000_000)

    static func notification(_ body: String, app: String = "a") -> InboxNotification {
        InboxNotification(
            appId: app, idempotencyKey: InboxNotification.idempotencyKey(version: .v2, notificationUUID: "U-\(body)", body: Data(body.utf8)),
            version: .v2, body: body, headers: ["content-type": "application/json"], receivedAt: t0
        )
    }

    @Test("an exact repeat is stored once; the raw body and headers come back unchanged", arguments: TestBackend.available)
    func receiveIsIdempotent(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let first = try await store.receive(Self.notification("{\"signedPayload\":\"x\"}"))
            let again = try await store.receive(Self.notification("{\"signedPayload\":\"x\"}"))
            #expect(first == .inserted(id: first.id))
            #expect(again == .duplicate(id: first.id))
            let row = try #require(try await store.notification(id: first.id))
            #expect(row.body == "{\"signedPayload\":\"x\"}")
            #expect(row.headers == ["content-type": "application/json"])
            #expect(row.state == .pending)
            #expect(try await store.pendingCount() == 1)
        }
    }

    @Test("notifications arriving together are each answered once durable, repeats with the first row's id", arguments: TestBackend.available)
    func concurrentReceives(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let bodies = (0..<60).map { "{\"n\":\($0 % 40)}" }
            let answers = try await withThrowingTaskGroup(of: (String, InboxInsertion).self) { group in
                for body in bodies { group.addTask { (body, try await store.receive(Self.notification(body))) } }
                var answers: [(String, InboxInsertion)] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            let byBody = Dictionary(grouping: answers, by: \.0)
            #expect(byBody.count == 40)
            for (body, answered) in byBody {
                #expect(Set(answered.map(\.1.id)).count == 1, "one row for \(body)")
                #expect(answered.filter { if case .inserted = $0.1 { true } else { false } }.count == 1)
                let row = try #require(try await store.notification(id: answered[0].1.id))
                #expect(row.body == body)
            }
            #expect(try await store.pendingCount() == 40)
        }
    }

    @Test("pending rows are leased to one owner at a time and freed by an expired lease or a restart", arguments: TestBackend.available)
    func leases(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            for index in 0..<5 { _ = try await store.receive(Self.notification("n\(index)")) }
            let lease = Self.t0.addingTimeInterval(30)
            let first = try await store.claimPending(limit: 3, owner: "w1", now: Self.t0, leaseUntil: lease)
            let second = try await store.claimPending(limit: 3, owner: "w2", now: Self.t0, leaseUntil: lease)
            #expect(first.map(\.body) == ["n0", "n1", "n2"])
            #expect(second.map(\.body) == ["n3", "n4"])
            #expect(try await store.claimPending(limit: 3, owner: "w3", now: Self.t0, leaseUntil: lease).isEmpty)
            let afterExpiry = try await store.claimPending(
                limit: 10, owner: "w3", now: lease.addingTimeInterval(1), leaseUntil: lease.addingTimeInterval(60))
            #expect(afterExpiry.count == 5)
            try await store.releaseLeases()
            #expect(try await store.claimPending(limit: 10, owner: "w4", now: Self.t0, leaseUntil: lease).count == 5)
        }
    }

    /// Two workers (replicas) must never decide changes of one chain at once.
    @Test("a row naming a chain waits while an earlier row of that chain is pending, whoever holds it", arguments: TestBackend.available)
    func oneChainInOrder(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            func received(_ body: String, chain: String?, app: String = "a") async throws -> Int64 {
                var row = Self.notification(body, app: app)
                row.metadata = chain.map { NotificationMetadata(originalTransactionId: $0) }
                return try await store.receive(row).id
            }
            let x1 = try await received("x1", chain: "X")
            let y1 = try await received("y1", chain: "Y")
            let x2 = try await received("x2", chain: "X")
            let free = try await received("free", chain: nil)
            let x3 = try await received("x3", chain: "X")
            let otherApp = try await received("x-other", chain: "X", app: "b")
            let lease = Self.t0.addingTimeInterval(60)
            // The chain is stored as received, before any processing.
            #expect(try await store.notifications(appId: "a", filter: NotificationFilter(originalTransactionId: "X")).map(\.id) == [x3, x2, x1])
            let first = try await store.claimPending(limit: 10, owner: "w1", now: Self.t0, leaseUntil: lease)
            #expect(first.map(\.id) == [x1, y1, free, otherApp])
            // x2 waits for x1 although x1 is leased to another worker; so does x3.
            #expect(try await store.claimPending(limit: 10, owner: "w2", now: Self.t0, leaseUntil: lease).isEmpty)
            try await store.apply(
                Changeset(appId: "a", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: x1, state: .processed, processedAt: Self.t0)))
            #expect(try await store.claimPending(limit: 10, owner: "w2", now: Self.t0, leaseUntil: lease).map(\.id) == [x2])
            // A rejected or failed row no longer holds its chain back.
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: x2, state: .rejected, failureReason: "test", processedAt: Self.t0)))
            #expect(try await store.claimPending(limit: 10, owner: "w3", now: Self.t0, leaseUntil: lease).map(\.id) == [x3])
        }
    }

    /// Apple sends a change in both versions at once; the drain decides the V2 row first only
    /// when both are in one batch (`InboxProcessor.signedFirst`).
    @Test("a V1 row is listed by its chain but holds back no V2 row of it, nor waits behind one", arguments: TestBackend.available)
    func legacyRowOutOfChainOrder(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            func received(_ body: String, version: NotificationVersion) async throws -> Int64 {
                var row = Self.notification(body)
                row.version = version
                row.idempotencyKey = InboxNotification.idempotencyKey(version: version, notificationUUID: nil, body: Data(body.utf8))
                row.metadata = NotificationMetadata(originalTransactionId: "X")
                return try await store.receive(row).id
            }
            let v1 = try await received("v1-first", version: .v1)
            let v2 = try await received("v2-second", version: .v2)
            let v1Again = try await received("v1-third", version: .v1)
            let v2Later = try await received("v2-fourth", version: .v2)
            #expect(
                try await store.notifications(appId: "a", filter: NotificationFilter(originalTransactionId: "X")).map(\.id) == [
                    v2Later, v1Again, v2, v1,
                ])
            let lease = Self.t0.addingTimeInterval(60)
            #expect(try await store.claimPending(limit: 10, owner: "w1", now: Self.t0, leaseUntil: lease).map(\.id) == [v1, v2, v1Again])
            try await store.apply(
                Changeset(appId: "a", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: v2, state: .processed, processedAt: Self.t0)))
            #expect(try await store.claimPending(limit: 10, owner: "w2", now: Self.t0, leaseUntil: lease).map(\.id) == [v2Later])
        }
    }

    @Test("processed rows carry their metadata, are filtered, and are no longer pending", arguments: TestBackend.available)
    func outcomesAndFilters(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let a = try await store.receive(Self.notification("a")).id
            let b = try await store.receive(Self.notification("b")).id
            let c = try await store.receive(Self.notification("c", app: "other")).id
            let metadata = NotificationMetadata(
                notificationUUID: "UUID-A", notificationType: "DID_RENEW", originalTransactionId: "t1", signedDate: Self.t0)
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: a, state: .processed, metadata: metadata, processedAt: Self.t0)))
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    inboxOutcome: InboxOutcome(inboxId: b, state: .rejected, failureReason: "invalid_certificate: forged", processedAt: Self.t0)))
            // An outcome naming another app's row changes nothing.
            try await store.apply(Changeset(appId: "a", at: Self.t0, inboxOutcome: InboxOutcome(inboxId: c, state: .processed, processedAt: Self.t0)))
            #expect(try await store.pendingCount() == 1)
            let byChain = try await store.notifications(appId: "a", filter: NotificationFilter(originalTransactionId: "t1"))
            #expect(byChain.map(\.id) == [a])
            #expect(byChain.first?.metadata?.notificationType == "DID_RENEW")
            #expect(try await store.notifications(appId: "a", filter: NotificationFilter(notificationType: "EXPIRED")).isEmpty)
            let rejected = try await store.notifications(appId: "a", filter: NotificationFilter(state: .rejected))
            #expect(rejected.first?.failureReason == "invalid_certificate: forged")
            #expect(try await store.notifications(appId: "a", filter: NotificationFilter()).count == 2)
            var bySubtype = NotificationFilter()
            bySubtype.subtype = "AUTO_RENEW_ENABLED"
            #expect(try await store.notifications(appId: "a", filter: bySubtype).isEmpty)
            var byDate = NotificationFilter()
            byDate.receivedFrom = Self.t0.addingTimeInterval(-1)
            byDate.receivedBefore = Self.t0.addingTimeInterval(1)
            #expect(try await store.notifications(appId: "a", filter: byDate).count == 2)
            byDate.receivedBefore = Self.t0.addingTimeInterval(-0.5)
            #expect(try await store.notifications(appId: "a", filter: byDate).isEmpty)
            #expect(try await store.isProcessed(appId: "a", notificationUUID: "uuid-a", exceptId: b))
            #expect(try await !store.isProcessed(appId: "a", notificationUUID: "uuid-a", exceptId: a))
        }
    }

    @Test("jobs are idempotent, leased once until due and retried or failed", arguments: TestBackend.available)
    func jobs(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let id = try await store.enqueue(JobRecord(appId: "a", kind: "reconcile", runAt: Self.t0, idempotencyKey: "r:t1"))
            #expect(try await store.enqueue(JobRecord(appId: "a", kind: "reconcile", runAt: Self.t0, idempotencyKey: "r:t1")) == id)
            _ = try await store.enqueue(JobRecord(appId: "a", kind: "reconcile", runAt: Self.t0.addingTimeInterval(3600), idempotencyKey: "r:t2"))
            let lease = Self.t0.addingTimeInterval(60)
            let leased = try await store.leaseJobs(limit: 10, owner: "w1", now: Self.t0, leaseUntil: lease)
            #expect(leased.map(\.id) == [id])
            #expect(try await store.leaseJobs(limit: 10, owner: "w2", now: Self.t0, leaseUntil: lease).isEmpty)
            try await store.failJob(id: id, owner: "w2", error: "not mine", retryAt: nil)
            #expect(try await store.job(id: id)?.state == .pending)
            try await store.failJob(id: id, owner: "w1", error: "HTTP 503", retryAt: Self.t0.addingTimeInterval(10))
            #expect(try await store.leaseJobs(limit: 10, owner: "w1", now: Self.t0, leaseUntil: lease).isEmpty)
            let retried = try await store.leaseJobs(
                limit: 10, owner: "w1", now: Self.t0.addingTimeInterval(11), leaseUntil: lease.addingTimeInterval(60))
            #expect(retried.first?.attempts == 2)
            #expect(retried.first?.lastError == "HTTP 503")
            try await store.completeJob(id: id, owner: "w1")
            #expect(try await store.job(id: id)?.state == .done)
        }
    }

    @Test("claiming takes each app's oldest rows in turn, so one app's backlog never holds back another", arguments: TestBackend.available)
    func fairClaims(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            for index in 0..<50 { _ = try await store.receive(Self.notification("flood\(index)", app: "noisy")) }
            let quiet = try await store.receive(Self.notification("genuine", app: "quiet")).id
            let third = try await store.receive(Self.notification("other", app: "third")).id
            let lease = Self.t0.addingTimeInterval(30)
            let batch = try await store.claimPending(limit: 4, owner: "w1", now: Self.t0, leaseUntil: lease)
            #expect(batch.count == 4)
            #expect(batch.contains { $0.id == quiet } && batch.contains { $0.id == third })
            #expect(batch.filter { $0.appId == "noisy" }.map(\.body) == ["flood0", "flood1"])
            #expect(batch.allSatisfy { $0.attempts == 1 })
        }
    }

    @Test("listings leave bodies out unless asked; the one-row read has it", arguments: TestBackend.available)
    func listingsWithoutBodies(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let id = try await store.receive(Self.notification("{\"signedPayload\":\"big\"}")).id
            #expect(try await store.notifications(appId: "a", filter: NotificationFilter()).map(\.body) == [""])
            #expect(
                try await store.notifications(appId: "a", filter: NotificationFilter(includesBodies: true)).map(\.body) == [
                    "{\"signedPayload\":\"big\"}"
                ])
            #expect(try await store.notification(id: id)?.body == "{\"signedPayload\":\"big\"}")
        }
    }

    @Test("the latest reception is each app's own, whatever the order rows were stored in", arguments: TestBackend.available)
    func lastReceived(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            #expect(try await store.lastReceivedAt(appId: "a") == nil)
            var late = Self.notification("late")
            late.receivedAt = Self.t0.addingTimeInterval(3_600)
            _ = try await store.receive(late)
            // Stored after, received before (a sweep's replay): the latest stays the latest.
            _ = try await store.receive(Self.notification("early"))
            var other = Self.notification("other", app: "b")
            other.receivedAt = Self.t0.addingTimeInterval(7_200)
            _ = try await store.receive(other)
            #expect(try await store.lastReceivedAt(appId: "a") == Self.t0.addingTimeInterval(3_600))
            #expect(try await store.lastReceivedAt(appId: "b") == Self.t0.addingTimeInterval(7_200))
            #expect(try await store.lastReceivedAt(appId: "c") == nil)
        }
    }

    @Test("V1 passwords an earlier version stored are removed from the inbox and the ledger", arguments: TestBackend.available)
    func storedPasswordsRemoved(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            let body = #"{"notification_type":"DID_RENEW","password":"the-shared-secret","bid":"com.example"}"#
            let v1 = InboxNotification(
                appId: "a", idempotencyKey: "v1:old", version: .v1, body: body, receivedAt: Self.t0)
            let id = try await store.receive(v1).id
            let grant = PurchaseFact.manualGrant(id: "grant:1", productId: "p", startDate: Self.t0, endDate: nil)
            try await store.apply(
                Changeset(
                    appId: "a", at: Self.t0,
                    entries: [
                        LedgerEntry(appId: "a", fact: .purchase(grant), source: "notificationV1", raw: body, recordedAt: Self.t0)
                    ]))
            #expect(try await store.removeStoredV1Passwords() == 2)
            let stored = try #require(try await store.notification(id: id))
            #expect(!stored.body.contains("the-shared-secret") && stored.body.contains("DID_RENEW"))
            let ledger = try await store.ledger(appId: "a", originalTransactionId: "grant:1")
            #expect(ledger.count == 1 && ledger.allSatisfy { $0.raw?.contains("the-shared-secret") == false })
            #expect(try await store.removeStoredV1Passwords() == 0)
        }
    }

    @Test(
        "schema 21 removes the V1 passwords an earlier version stored, once: a start no longer reads the ledger for them",
        arguments: TestBackend.available.filter { $0 != .memory })
    func storedPasswordsRemovedBySchemaStep(backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let body = #"{"notification_type":"DID_RENEW","password":"the-shared-secret","bid":"com.example"}"#
            var ids: [Int64] = []
            for index in 0..<3 {
                ids.append(
                    try await store.receive(
                        InboxNotification(appId: "a", idempotencyKey: "v1:old-\(index)", version: .v1, body: body, receivedAt: Self.t0)
                    ).id)
            }
            // More rows than one batch of the scrub, a few of them with the password.
            let entries = (0..<1_203).map { index in
                LedgerEntry(
                    appId: "a",
                    fact: .purchase(PurchaseFact.manualGrant(id: "grant:\(index)", productId: "p", startDate: Self.t0, endDate: nil)),
                    source: "notificationV1", raw: index % 2 == 0 ? body : #"{"notification_type":"DID_RENEW"}"#, recordedAt: Self.t0)
            }
            try await store.apply(Changeset(appId: "a", at: Self.t0, entries: entries))
            try await store.backend.transaction { db in try await db.raw("DELETE FROM schema_migrations WHERE version >= 21").run() }
            #expect(try await store.migrate() == Array(21...SQLStore.latestSchemaVersion))
            for id in ids {
                let stored = try #require(try await store.notification(id: id))
                #expect(!stored.body.contains("the-shared-secret") && stored.body.contains("DID_RENEW"))
            }
            for index in [0, 1, 600, 1_202] {
                let ledger = try await store.ledger(appId: "a", originalTransactionId: "grant:\(index)")
                #expect(ledger.count == 1 && ledger[0].raw?.contains("the-shared-secret") == false && ledger[0].raw?.contains("DID_RENEW") == true)
            }
            #expect(try await store.removeStoredV1Passwords() == 0)
        }
    }

    @Test("concurrent workers never lease the same notification twice", arguments: TestBackend.available)
    func concurrentClaims(backend: TestBackend) async throws {
        try await withTestStore(backend) { store in
            for index in 0..<40 { _ = try await store.receive(Self.notification("c\(index)")) }
            let claimed = try await withThrowingTaskGroup(of: [Int64].self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        var mine: [Int64] = []
                        while true {
                            let batch = try await store.claimPending(
                                limit: 3, owner: "w\(worker)", now: Self.t0, leaseUntil: Self.t0.addingTimeInterval(60))
                            if batch.isEmpty { return mine }
                            mine += batch.compactMap(\.id)
                        }
                    }
                }
                var all: [Int64] = []
                for try await ids in group { all += ids }
                return all
            }
            #expect(claimed.count == 40)
            #expect(Set(claimed).count == 40)
        }
    }
}
