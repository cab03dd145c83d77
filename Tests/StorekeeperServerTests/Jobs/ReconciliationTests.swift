import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import Logging
import StorekeeperApps
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import SubscriptionEngine
import Synchronization
import Testing

@Suite("Reconciliation jobs")
struct ReconciliationTests {
    static var quiet: Logger {
        var logger = Logger(label: "test.jobs")
        logger.logLevel = .critical
        return logger
    }

    static func deliver(_ bodies: [String], to store: any StorekeeperStorage, at now: Date) async throws {
        for body in bodies {
            _ = try await store.receive(
                InboxNotification(
                    appId: "alpha", idempotencyKey: InboxNotification.idempotencyKey(version: .v2, notificationUUID: nil, body: Data(body.utf8)),
                    version: .v2, body: body, receivedAt: now))
        }
    }

    @Test(
        "states converge to Apple's truth within one cycle although a fifth of notifications is lost",
        arguments: ServerBackend.available)
    func convergesDespiteDroppedNotifications(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, client in
            let reconciliation = ReconciliationRun(harness)
            let apple = reconciliation.apple
            #expect(apple.notifications.filter(\.dropped).count * 5 >= apple.notifications.count - 4)
            try await reconciliation.advance(every: 2 * 3_600)
            let catalog = try reconciliation.catalog()
            var mismatches: [String] = []
            for answer in try await reconciliation.answers(client) {
                let (chain, truth, horizon) = (answer.subscriber.chain, answer.truth, ReconciliationRun.horizon)
                let ledger = try await harness.store.ledger(appId: "alpha", originalTransactionId: chain)
                let ours = CustomerState(history: PurchaseHistory(ledger: ledger), catalog: catalog, at: horizon).subscription(chain)
                if answer.status != truth.status.rawValue || ours?.expiresDate != truth.expiresDate || ours?.willAutoRenew != truth.willAutoRenew {
                    mismatches.append("\(chain) \(answer.subscriber.scenario): API \(answer.status ?? "none") truth \(truth.status.rawValue)")
                }
            }
            #expect(mismatches.isEmpty, "\(mismatches)")
            // Per-subscriber calls (statuses, refunds) against naive polling's one call per
            // subscriber per day; the notification-history sweep costs a fixed amount per app.
            let (days, subscriberCount) = (ReconciliationRun.days, ReconciliationRun.subscriberCount)
            let counts = apple.callCounts
            let perSubscriberCalls = (counts["statuses"] ?? 0) + (counts["refundHistory"] ?? 0)
            let perSubscriberDay = Double(perSubscriberCalls) / (Double(subscriberCount) * days)
            let sweepPerDay = Double(counts["notificationHistory"] ?? 0) / days
            let total = Double(counts.values.reduce(0, +)) / (Double(subscriberCount) * days)
            let line =
                "reconciliation (\(backend)): Apple calls \(counts) for \(subscriberCount) subscribers over \(Int(days)) days: "
                + String(format: "%.3f", perSubscriberDay) + " per subscriber per day (naive daily polling: 1.000, ratio 1:"
                + String(format: "%.0f", 1 / max(perSubscriberDay, 0.0001)) + ") plus " + String(format: "%.1f", sweepPerDay)
                + " history calls per app per day; all calls at this size " + String(format: "%.3f", total) + " per subscriber per day\n"
            FileHandle.standardError.write(Data(line.utf8))
            #expect(perSubscriberDay <= 0.02)
        }
    }

    @Test("two replicas, each with its own connection to one database, never run the same job twice", arguments: ServerBackend.databases)
    func replicasNeverRunOneJobTwice(_ backend: ServerBackend) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sk-jobs-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let (configuration, _) = try Fixture.configuration(directory: directory)
        try await withTwoServerStores(backend) { store, otherStore in
            try await store.saveApp(AppRecord(id: "alpha", bundleId: Fixture.bundle, createdAt: Fixture.t0))
            let jobs = 120
            for index in 0..<jobs {
                try await store.enqueue(
                    JobRecord(
                        appId: "alpha", kind: JobKind.refreshSubscription.rawValue,
                        payload: "{\"originalTransactionId\":\"7000\(index)\"}", runAt: Fixture.t0, idempotencyKey: "refresh:7000\(index)"))
            }
            let executions = Mutex([String: Int]())
            var fake = AppStoreServerAPIFake()
            fake.getAllSubscriptionStatusesHandler = { chain, _ in
                executions.withLock { $0[chain, default: 0] += 1 }
                try await Task.sleep(for: .milliseconds(2))
                return try SignedData.decode(StatusResponse.self, ["environment": "Sandbox", "data": []])
            }
            let apps = try AppDirectory(configuration: configuration)
            let clients = AppleClients(["alpha": fake])
            let settings = SchedulerConfiguration(batchSize: 3)
            let first = JobScheduler(
                runner: JobRunner(apps: apps, store: store, clients: clients, clock: { Fixture.t0 }, logger: Self.quiet, configuration: settings),
                owner: "replica-a")
            let second = JobScheduler(
                runner: JobRunner(
                    apps: apps, store: otherStore, clients: clients, clock: { Fixture.t0 }, logger: Self.quiet, configuration: settings),
                owner: "replica-b")
            async let ranByFirst = first.runDue()
            async let ranBySecond = second.runDue()
            let (a, b) = try await (ranByFirst, ranBySecond)
            let counts = executions.withLock { $0 }
            #expect(a + b == jobs)
            #expect(counts.count == jobs)
            #expect(counts.values.allSatisfy { $0 == 1 }, "\(counts.filter { $0.value != 1 })")
            FileHandle.standardError.write(
                Data(
                    "replicas (\(backend)): replica-a ran \(a), replica-b ran \(b), \(jobs) jobs, max executions per job \(counts.values.max() ?? 0)\n"
                        .utf8))
        }
    }
}
