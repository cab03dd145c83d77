import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import Foundation
import StorekeeperApps
import StorekeeperInbox
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import Synchronization
import Testing

@Suite("Refund requests")
struct ConsumptionRequestTests {
    /// Delivers a CONSUMPTION_REQUEST signed at `signed`, runs the scheduler at `now` under
    /// `policy`, and returns what was sent to Apple and the customer's timeline.
    static func answer(
        _ harness: ServerHarness, policy: RefundPolicy, signed: Date, now: Date, consent: Bool = true
    ) async throws -> (sent: [ConsumptionRequest], events: [String]) {
        let chain = "5550001"
        try await harness.store.apply(
            Changeset(appId: "alpha", at: signed, links: [CustomerLink(customerId: "c-1", aliases: [.originalTransactionId(chain)])]))
        let transaction = try SignedData.transaction(
            id: "5550002", original: chain, purchase: signed.addingTimeInterval(-86_400), expires: signed.addingTimeInterval(29 * 86_400),
            signed: signed)
        let body = try SignedData.notification(
            harness.ca, type: "CONSUMPTION_REQUEST", subtype: nil, signed: signed, transaction: transaction, renewal: nil)
        harness.clock.set(signed)
        try await ReconciliationTests.deliver([body], to: harness.store, at: signed)
        try await harness.processor.drain()
        var configuration = harness.configuration
        let index = try #require(configuration.apps.firstIndex { $0.id == "alpha" })
        configuration.apps[index].refundPolicy = policy
        configuration.apps[index].consumptionDataConsent = consent
        let sent = Mutex([ConsumptionRequest]())
        var fake = AppStoreServerAPIFake()
        fake.sendConsumptionInformationHandler = { transactionId, request in
            #expect(transactionId == "5550002")
            sent.withLock { $0.append(request) }
        }
        harness.clock.set(now)
        let scheduler = JobScheduler(
            runner: JobRunner(
                apps: try AppDirectory(configuration: configuration), store: harness.store, clients: AppleClients(["alpha": fake]),
                clock: { harness.clock.now }, logger: ReconciliationTests.quiet,
                configuration: SchedulerConfiguration(notificationSweepSeconds: 1e9, refundSweepSeconds: 1e9, planSeconds: 1e9)))
        try await scheduler.planPeriodic()
        let jobs = try await harness.store.jobs(appId: "alpha", kind: JobKind.consumptionAnswer.rawValue, limit: 10)
        #expect(jobs.count == 1)
        // Sweeps of the planning pass have no Apple answers here: run only the consumption job.
        try await scheduler.runDue()
        try await scheduler.planPeriodic()
        try await scheduler.runDue()
        let events = try await harness.store.events(appId: "alpha", customerId: "c-1", limit: 100).map(\.type.rawValue)
        return (sent.withLock { $0 }, events)
    }

    @Test("a refund request is answered once under the app's policy and recorded in the timeline", arguments: ServerBackend.available)
    func answersUnderPolicy(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, _ in
            let (sent, events) = try await Self.answer(harness, policy: .grantProrated, signed: Fixture.t0, now: Fixture.t0.addingTimeInterval(600))
            #expect(sent.count == 1)
            #expect(sent.first?.refundPreference == .grantProrated)
            #expect(sent.first?.customerConsented == true)
            #expect(events.filter { $0 == "refund.consumption_sent" }.count == 1)
        }
    }

    @Test("a refund request past Apple's 12-hour window is not answered, and says so", arguments: ServerBackend.available)
    func expiredWindow(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, _ in
            let (sent, events) = try await Self.answer(harness, policy: .decline, signed: Fixture.t0, now: Fixture.t0.addingTimeInterval(13 * 3_600))
            #expect(sent.isEmpty)
            #expect(events.contains("refund.consumption_expired"))
        }
    }

    @Test("doNotAnswer records the request without calling Apple", arguments: ServerBackend.available)
    func doNotAnswer(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, _ in
            let (sent, events) = try await Self.answer(harness, policy: .doNotAnswer, signed: Fixture.t0, now: Fixture.t0.addingTimeInterval(60))
            #expect(sent.isEmpty)
            #expect(events.contains("refund.consumption_not_answered"))
        }
    }

    @Test("without the app's declared consent no consumption data goes to Apple, and the timeline says why", arguments: ServerBackend.available)
    func noConsent(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, _ in
            let (sent, events) = try await Self.answer(
                harness, policy: .grantFull, signed: Fixture.t0, now: Fixture.t0.addingTimeInterval(60), consent: false)
            #expect(sent.isEmpty)
            #expect(events.contains("refund.consumption_not_answered"))
        }
    }
}
