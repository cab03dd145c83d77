import AppStoreModels
import AppStoreServerAPI
import AppStoreServerAPITesting
import AppStoreTestSigning
import Foundation
import StorekeeperApps
import StorekeeperJobs
import StorekeeperServer
import StorekeeperStore
import SubscriptionEngine
import Synchronization
import Testing

/// A scripted App Store for one chain: the notifications it sends (each delivered, lost on the
/// way and so listed by the `onlyFailures` history, or acknowledged by something that lost it),
/// its answer to a status call at any instant, and a log of the calls it gets.
final class ScriptedApple: Sendable {
    enum Fate: Sendable {
        /// Delivered to the server.
        case delivered
        /// Every attempt failed: Apple's history lists it under `onlyFailures`.
        case lost
        /// Apple saw a success but the server never stored it (a proxy in front lost it): only
        /// a history query without `onlyFailures` finds it.
        case acknowledgedButLost
    }

    struct Sent: Sendable {
        var date: Date
        var type: NotificationTypeV2
        var body: String
        var fate: Fate
        var signedPayload: String {
            let object = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: String]
            return object?["signedPayload"] ?? ""
        }
    }

    struct Call: Sendable {
        var endpoint: String
        var at: Date
        var notificationType: NotificationTypeV2?
    }

    private struct State {
        var sent: [Sent] = []
        var handedOut = 0
        var calls: [Call] = []
    }

    private let state = Mutex(State())
    let clock: TestClock
    /// Apple's truth at an instant: the chain's latest transaction and renewal info.
    let truth: @Sendable (Date) throws -> (JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload)

    init(clock: TestClock, truth: @escaping @Sendable (Date) throws -> (JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload)) {
        self.clock = clock
        self.truth = truth
    }

    /// Scripts a notification Apple sends at `date`.
    func send(_ type: NotificationTypeV2, at date: Date, body: String, fate: Fate) {
        state.withLock { $0.sent.append(Sent(date: date, type: type, body: body, fate: fate)) }
    }

    var calls: [Call] { state.withLock { $0.calls } }

    func calls(_ endpoint: String) -> [Call] { calls.filter { $0.endpoint == endpoint } }

    /// The bodies delivered by `now` not handed out yet.
    func due(now: Date) -> [String] {
        state.withLock { state in
            let sorted = state.sent.sorted { $0.date < $1.date }
            let due = sorted.filter { $0.date <= now }
            defer { state.handedOut = due.count }
            return due.dropFirst(state.handedOut).filter { $0.fate == .delivered }.map(\.body)
        }
    }

    private func log(_ endpoint: String, type: NotificationTypeV2? = nil) {
        let now = clock.now
        state.withLock { $0.calls.append(Call(endpoint: endpoint, at: now, notificationType: type)) }
    }

    func client(_ ca: TestCertificateAuthority) -> AppStoreServerAPIFake {
        var fake = AppStoreServerAPIFake()
        fake.getAllSubscriptionStatusesHandler = { [self] chain, _ in
            log("statuses")
            let (transaction, renewal) = try truth(clock.now)
            let item: [String: Any] = [
                "originalTransactionId": chain, "status": 1, "signedTransactionInfo": try ca.signTransaction(transaction),
                "signedRenewalInfo": try ca.signRenewalInfo(renewal),
            ]
            return try SignedData.decode(
                StatusResponse.self,
                ["environment": "Sandbox", "bundleId": Fixture.bundle, "data": [["subscriptionGroupIdentifier": "pro", "lastTransactions": [item]]]])
        }
        fake.getNotificationHistoryHandler = { [self] _, request in
            log("notificationHistory", type: request.notificationType)
            let now = clock.now
            let start = request.startDate ?? .distantPast
            let end = request.endDate ?? now
            let listed = state.withLock { $0.sent }.filter { sent in
                sent.date >= start && sent.date < end && sent.date <= now
                    && (request.notificationType == nil || request.notificationType == sent.type)
                    && (request.onlyFailures != true || sent.fate == .lost)
            }
            return try SignedData.decode(
                NotificationHistoryResponse.self,
                ["hasMore": false, "notificationHistory": listed.map { ["signedPayload": $0.signedPayload, "sendAttempts": []] }])
        }
        fake.getRefundHistoryHandler = { [self] _, _ in
            log("refundHistory")
            return try SignedData.decode(RefundHistoryResponse.self, ["hasMore": false, "signedTransactions": []])
        }
        return fake
    }
}

@Suite("Reconciliation trusts the notification history first")
struct HistoryFirstTests {
    static let chain = "8000001"
    /// The period under test ends a day after the fixture's start (midnight, an hour boundary).
    static let periodEnd = Fixture.t0.addingTimeInterval(Fixture.day)
    static let graceEnd = periodEnd.addingTimeInterval(3 * Fixture.day)

    static func first(signed: Date) throws -> JWSTransactionDecodedPayload {
        try SignedData.transaction(
            id: chain, original: chain, purchase: periodEnd.addingTimeInterval(-30 * Fixture.day), expires: periodEnd, signed: signed)
    }

    static func renewed(signed: Date) throws -> JWSTransactionDecodedPayload {
        try SignedData.transaction(
            id: "8000002", original: chain, purchase: periodEnd, expires: periodEnd.addingTimeInterval(30 * Fixture.day), signed: signed)
    }

    /// Apple renews the chain at the end of its period.
    static func renewing(_ at: Date) throws -> (JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload) {
        (at < periodEnd ? try first(signed: at) : try renewed(signed: at), try SignedData.renewal(original: chain, autoRenew: true, signed: at))
    }

    /// Apple fails to charge at the end of the period: three days of grace, then billing retry.
    static func failing(_ at: Date) throws -> (JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload) {
        let renewal =
            at < periodEnd
            ? try SignedData.renewal(original: chain, autoRenew: true, signed: at)
            : try SignedData.renewal(original: chain, autoRenew: true, billingRetry: true, grace: graceEnd, signed: at)
        return (try first(signed: periodEnd.addingTimeInterval(-30 * Fixture.day)), renewal)
    }

    /// Sends the chain's `SUBSCRIBED` (delivered), then runs the server's scheduler every 15
    /// minutes from the fixture's start through `end`, delivering what Apple delivers.
    static func run(
        _ harness: ServerHarness, _ apple: ScriptedApple, through end: Date, configuration: SchedulerConfiguration = SchedulerConfiguration()
    ) async throws -> SubscriptionState? {
        let purchase = periodEnd.addingTimeInterval(-30 * Fixture.day)
        apple.send(
            .subscribed, at: purchase,
            body: try SignedData.notification(
                harness.ca, type: "SUBSCRIBED", subtype: "INITIAL_BUY", signed: purchase, transaction: try first(signed: purchase),
                renewal: try SignedData.renewal(original: chain, autoRenew: true, signed: purchase)), fate: .delivered)
        let runner = JobRunner(
            apps: try AppDirectory(configuration: harness.configuration), store: harness.store,
            clients: AppleClients(["alpha": apple.client(harness.ca)]), clock: { harness.clock.now }, logger: ReconciliationTests.quiet,
            configuration: configuration)
        let scheduler = JobScheduler(runner: runner)
        var instant = Fixture.t0
        while instant <= end {
            harness.clock.set(instant)
            try await ReconciliationTests.deliver(apple.due(now: instant), to: harness.store, at: instant)
            try await harness.processor.drain()
            try await scheduler.tick()
            try await harness.processor.drain()
            instant = instant.addingTimeInterval(900)
        }
        let catalog = try AppDirectory(configuration: harness.configuration).apps["alpha"]!.catalog
        let ledger = try await harness.store.ledger(appId: "alpha", originalTransactionId: chain)
        return CustomerState(history: PurchaseHistory(ledger: ledger), catalog: catalog, at: end).subscription(chain)
    }

    /// A notification of the chain at `date`.
    static func notification(
        _ harness: ServerHarness, _ type: String, subtype: String? = nil, at date: Date,
        truth: (Date) throws -> (JWSTransactionDecodedPayload, JWSRenewalInfoDecodedPayload)
    ) throws -> String {
        let (transaction, renewal) = try truth(date)
        return try SignedData.notification(harness.ca, type: type, subtype: subtype, signed: date, transaction: transaction, renewal: renewal)
    }

    @Test("a chain whose renewal was lost on the way but appears in the swept history gets no status call", arguments: ServerBackend.available)
    func renewalInHistory(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, _ in
            let apple = ScriptedApple(clock: harness.clock, truth: Self.renewing)
            apple.send(
                .didRenew, at: Self.periodEnd, body: try Self.notification(harness, "DID_RENEW", at: Self.periodEnd, truth: Self.renewing),
                fate: .lost)
            let state = try await Self.run(harness, apple, through: Self.periodEnd.addingTimeInterval(6 * 3_600))
            #expect(state?.status == .active)
            #expect(state?.expiresDate == Self.periodEnd.addingTimeInterval(30 * Fixture.day))
            #expect(apple.calls("statuses").isEmpty)
            #expect(apple.calls("refundHistory").isEmpty)
        }
    }

    @Test(
        "a renewal that left no trace in the history gets one status call, once the history swept past it is processed",
        arguments: ServerBackend.available)
    func renewalWithoutTrace(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, _ in
            let apple = ScriptedApple(clock: harness.clock, truth: Self.renewing)
            let state = try await Self.run(harness, apple, through: Self.periodEnd.addingTimeInterval(6 * 3_600))
            #expect(state?.expiresDate == Self.periodEnd.addingTimeInterval(30 * Fixture.day))
            let statusCalls = apple.calls("statuses")
            #expect(statusCalls.count == 1)
            // Not before the hourly sweep whose window passes the look's instant (the period's
            // end plus ten minutes) has run.
            let sweptPast = apple.calls("notificationHistory").first { $0.at > Self.periodEnd.addingTimeInterval(600) }
            #expect(try #require(statusCalls.first).at > (try #require(sweptPast)).at)
        }
    }

    @Test(
        "a chain in billing retry gets one status call at the end of its grace period only when the end left no trace in the history",
        arguments: ServerBackend.available)
    func graceEnding(_ backend: ServerBackend) async throws {
        for traced in [true, false] {
            try await ServerHarness.run(backend) { harness, _ in
                let apple = ScriptedApple(clock: harness.clock, truth: Self.failing)
                apple.send(
                    .didFailToRenew, at: Self.periodEnd,
                    body: try Self.notification(harness, "DID_FAIL_TO_RENEW", subtype: "GRACE_PERIOD", at: Self.periodEnd, truth: Self.failing),
                    fate: .delivered)
                if traced {
                    apple.send(
                        .gracePeriodExpired, at: Self.graceEnd,
                        body: try Self.notification(harness, "GRACE_PERIOD_EXPIRED", at: Self.graceEnd, truth: Self.failing), fate: .lost)
                }
                let state = try await Self.run(harness, apple, through: Self.graceEnd.addingTimeInterval(6 * 3_600))
                #expect(state?.status == .billingRetry)
                let statusCalls = apple.calls("statuses")
                #expect(statusCalls.count == (traced ? 0 : 1), "traced: \(traced)")
                #expect(statusCalls.allSatisfy { $0.at > Self.graceEnd }, "traced: \(traced)")
            }
        }
    }

    @Test(
        "refund sweeps query the notification history by type, never one refund lookup per chain, and recover a refund the hourly sweep cannot see",
        arguments: ServerBackend.available)
    func refundSweep(_ backend: ServerBackend) async throws {
        try await ServerHarness.run(backend) { harness, _ in
            let apple = ScriptedApple(clock: harness.clock, truth: Self.renewing)
            let refundedAt = Fixture.t0.addingTimeInterval(2 * 3_600)
            let revoked = try SignedData.transaction(
                id: Self.chain, original: Self.chain, purchase: Self.periodEnd.addingTimeInterval(-30 * Fixture.day), expires: Self.periodEnd,
                signed: refundedAt, revoked: refundedAt)
            apple.send(
                .refund, at: refundedAt,
                body: try SignedData.notification(harness.ca, type: "REFUND", signed: refundedAt, transaction: revoked, renewal: nil),
                fate: .acknowledgedButLost)
            let state = try await Self.run(
                harness, apple, through: Fixture.t0.addingTimeInterval(Fixture.day + 3_600),
                configuration: SchedulerConfiguration(refundSweepSeconds: Fixture.day))
            #expect(state?.status == .revoked)
            #expect(apple.calls("refundHistory").isEmpty)
            #expect(apple.calls("statuses").isEmpty)
            let byType = Set(apple.calls("notificationHistory").compactMap(\.notificationType))
            #expect(byType == [.refund, .revoke, .refundReversed])
        }
    }
}
