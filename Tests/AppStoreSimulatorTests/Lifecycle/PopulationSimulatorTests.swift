import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Testing

@Suite("Population lifecycle")
struct PopulationSimulatorTests {
    static let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    static let signer: SimulatorSigner = {
        let ca = try! TestCertificateAuthority.generate(
            notBefore: start.addingTimeInterval(-86_400), notAfter: start.addingTimeInterval(800 * 86_400))
        let receipts = try! ReceiptSigningAuthority.generate(
            validFrom: start.addingTimeInterval(-86_400), validUntil: start.addingTimeInterval(800 * 86_400))
        return SimulatorSigner(certificateAuthority: ca, receiptAuthority: receipts)
    }()

    static func run(
        customers: Int, days: Double, seed: UInt64, behaviour: PopulationBehaviour = PopulationBehaviour()
    ) throws
        -> (store: SimulatedAppStore, outputs: [LifecycleOutput])
    {
        let store = SimulatedAppStore(bundleId: "com.example.sim", appAppleId: 42, environment: .production)
        let simulator = PopulationSimulator(
            configuration: PopulationConfiguration(customers: customers, start: start, days: days, seed: seed, behaviour: behaviour),
            store: store, signer: signer)
        var outputs: [LifecycleOutput] = []
        var instant = start
        let end = start.addingTimeInterval(days * 86_400)
        while instant < end {
            instant = min(end, instant.addingTimeInterval(86_400))
            outputs.append(try simulator.advance(to: instant))
        }
        return (store, outputs)
    }

    /// A population that does everything often, so every kind of event happens.
    static var busy: PopulationBehaviour {
        var behaviour = PopulationBehaviour()
        behaviour.churnRate = 0.2
        behaviour.billingFailureRate = 0.2
        behaviour.refundRate = 0.05
        behaviour.upgradeRate = 0.1
        behaviour.downgradeRate = 0.1
        behaviour.crossgradeRate = 0.1
        behaviour.familySharingRate = 0.2
        behaviour.priceIncreaseRate = 0.1
        behaviour.winBackRate = 0.5
        behaviour.consumableRefundRequestRate = 0.5
        return behaviour
    }

    @Test("the same seed gives the same run, another seed another run")
    func seedMakesRunsReproducible() throws {
        let first = try Self.run(customers: 40, days: 90, seed: 7).store
        let second = try Self.run(customers: 40, days: 90, seed: 7).store
        let other = try Self.run(customers: 40, days: 90, seed: 8).store
        #expect(first.subscriptions() == second.subscriptions())
        #expect(first.allNotifications.map(\.notificationUUID) == second.allNotifications.map(\.notificationUUID))
        #expect(first.subscriptions() != other.subscriptions())
    }

    @Test("a busy year produces every lifecycle Apple notifies about")
    func busyYearCoversEveryLifecycle() throws {
        let (store, _) = try Self.run(customers: 300, days: 365, seed: 3, behaviour: Self.busy)
        let seen = Set(store.allNotifications.map { "\($0.notificationType.rawValue)/\($0.subtype?.rawValue ?? "")" })
        let expected = [
            "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/RESUBSCRIBE", "DID_RENEW/", "DID_RENEW/BILLING_RECOVERY", "DID_FAIL_TO_RENEW/GRACE_PERIOD",
            "GRACE_PERIOD_EXPIRED/", "EXPIRED/VOLUNTARY", "EXPIRED/BILLING_RETRY", "EXPIRED/PRICE_INCREASE",
            "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED",
            "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE", "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED",
            "REFUND/", "REVOKE/", "ONE_TIME_CHARGE/", "CONSUMPTION_REQUEST/", "REFUND_DECLINED/",
        ]
        for name in expected { #expect(seen.contains(name), "never happened: \(name)") }
        let subscriptions = store.subscriptions()
        #expect(subscriptions.contains { $0.ownership == .familyShared })
        #expect(subscriptions.contains { $0.status(at: Self.start.addingTimeInterval(365 * 86_400)) == .revoked })
    }

    @Test("every chain's truth agrees with its latest transaction")
    func truthAgreesWithTransactions() throws {
        let (store, _) = try Self.run(customers: 200, days: 200, seed: 5, behaviour: Self.busy)
        for truth in store.subscriptions() {
            let latest = try #require(store.transaction(id: truth.lastTransactionId))
            #expect(latest.originalTransactionId == truth.originalTransactionId)
            #expect(latest.productId == truth.productId)
            #expect(latest.expiresDate == truth.expiresDate)
            #expect(latest.inAppOwnershipType == truth.ownership)
            if truth.revocationDate != nil { #expect(latest.revocationDate == truth.revocationDate) }
            if let grace = truth.gracePeriodExpiresDate { #expect(grace > truth.expiresDate) }
        }
    }

    @Test("notifications come out in time order, each signed so that the verifier accepts it")
    func notificationsAreOrderedAndVerify() async throws {
        let (store, outputs) = try Self.run(customers: 30, days: 120, seed: 11, behaviour: Self.busy)
        let all = outputs.flatMap(\.notifications)
        #expect(all.count == store.allNotifications.count)
        #expect(zip(all, all.dropFirst()).allSatisfy { $0.firstSendDate <= $1.firstSendDate })
        let verifier = try SignedDataVerifier(
            rootCertificates: [Self.signer.certificateAuthority.rootCertificateDER], bundleId: "com.example.sim", appAppleId: 42,
            environment: .production)
        for record in all.prefix(60) {
            let result = await verifier.verifyAndDecodeNotificationWithNestedData(record.signedPayload, now: record.firstSendDate)
            let verified = try #require(result.payload, "\(record.notificationType.rawValue) did not verify")
            #expect(verified.notification.notificationUUID == record.notificationUUID)
        }
        let purchases = outputs.flatMap(\.purchases)
        #expect(!purchases.isEmpty)
        for purchase in purchases.prefix(20) {
            let result = await verifier.verifyAndDecodeTransaction(purchase.signedTransaction, now: purchase.date)
            #expect(result.payload?.transactionId == purchase.transactionId)
        }
    }
    @Test("a period recovered inside the grace period starts at the lapse, but nothing in it happens before the recovery")
    func recoveredPeriodsPlanNothingInThePast() throws {
        var behaviour = Self.busy
        behaviour.billingFailureRate = 1
        behaviour.graceRecoveryRate = 1
        behaviour.upgradeRate = 0.5
        behaviour.churnRate = 0.5
        let (store, outputs) = try Self.run(customers: 30, days: 120, seed: 11, behaviour: behaviour)
        let all = outputs.flatMap(\.notifications)
        #expect(all.contains { $0.subtype == .billingRecovery })
        // Emitted in order, so each notification is sent no earlier than the one before it:
        // an upgrade, refund or toggle planned in a recovered period is not dated before the recovery.
        let backwards = zip(all, all.dropFirst()).filter { $0.firstSendDate > $1.firstSendDate }
        #expect(backwards.count == 0, "\(backwards.prefix(3).map { "\($0.0.notificationType.rawValue) then \($0.1.notificationType.rawValue)" })")
        #expect(all.count == store.allNotifications.count)
    }
}
