import AppStoreModels
import AppStoreSimulator
import AppStoreVerification
import Foundation
import Testing

@Suite("V1 notification types and a simulated population")
struct NotificationV1PopulationTests {
    typealias Scenario = NotificationV1Scenario

    @Test(
        "V2 events map to Apple's V1 notification types",
        arguments: [
            (NotificationTypeV2.subscribed, Subtype.initialBuy, NotificationTypeV1.initialBuy),
            (.subscribed, .resubscribe, .interactiveRenewal),
            (.offerRedeemed, .initialBuy, .initialBuy),
            (.offerRedeemed, .resubscribe, .interactiveRenewal),
            (.offerRedeemed, .upgrade, .interactiveRenewal),
            (.offerRedeemed, .downgrade, .didChangeRenewalPref),
            (.offerRedeemed, nil, nil),
            (.didRenew, nil, .didRenew),
            (.didRenew, .billingRecovery, .didRecover),
            (.didFailToRenew, nil, .didFailToRenew),
            (.didFailToRenew, .gracePeriod, .didFailToRenew),
            (.didChangeRenewalStatus, .autoRenewEnabled, .didChangeRenewalStatus),
            (.didChangeRenewalStatus, .autoRenewDisabled, .didChangeRenewalStatus),
            (.didChangeRenewalPref, .upgrade, .interactiveRenewal),
            (.didChangeRenewalPref, .downgrade, .didChangeRenewalPref),
            (.didChangeRenewalPref, nil, .didChangeRenewalPref),
            (.priceIncrease, .pending, .priceIncreaseConsent),
            (.priceIncrease, .accepted, nil),
            (.refund, nil, .refund),
            (.revoke, nil, .revoke),
            (.consumptionRequest, nil, .consumptionRequest),
            (.expired, .voluntary, nil),
            (.expired, .billingRetry, nil),
            (.expired, .priceIncrease, nil),
            (.expired, .productNotForSale, nil),
            (.gracePeriodExpired, nil, nil),
            (.refundDeclined, nil, nil),
            (.refundReversed, nil, nil),
            (.renewalExtended, nil, nil),
            (.renewalExtension, .summary, nil),
            (.oneTimeCharge, nil, nil),
            (.test, nil, nil),
            (NotificationTypeV2(rawValue: "SOMETHING_NEW"), nil, nil),
        ] as [(NotificationTypeV2, Subtype?, NotificationTypeV1?)])
    func typeMapping(type: NotificationTypeV2, subtype: Subtype?, expected: NotificationTypeV1?) {
        #expect(NotificationV1Builder.notificationType(for: type, subtype: subtype) == expected)
    }

    @Test("every notification of a busy simulated population has a V1 body that decodes and verifies, or none")
    func populationBodiesDecodeAndVerify() throws {
        let signer = try Scenario.sharedSigner.get()
        let store = SimulatedAppStore(bundleId: "com.example.population", appAppleId: 4242, environment: .production)
        var behaviour = PopulationBehaviour()
        behaviour.churnRate = 0.2
        behaviour.billingFailureRate = 0.2
        behaviour.refundRate = 0.05
        behaviour.upgradeRate = 0.1
        behaviour.downgradeRate = 0.1
        behaviour.familySharingRate = 0.2
        behaviour.priceIncreaseRate = 0.2
        behaviour.consumableRate = 0.3
        behaviour.consumableRefundRequestRate = 0.5
        let simulator = PopulationSimulator(
            configuration: PopulationConfiguration(customers: 30, start: Scenario.start, days: 150, seed: 11, behaviour: behaviour),
            store: store, signer: signer)
        let builder = NotificationV1Builder(signer: signer, sharedSecret: Scenario.sharedSecret)
        let verifier = try ReceiptVerifier(rootCertificates: [signer.receiptAuthority.rootCertificateDER])

        var seen: [NotificationTypeV1: Int] = [:]
        var withoutBody = 0
        var instant = Scenario.start
        while instant < simulator.configuration.end {
            instant = instant.addingTimeInterval(Scenario.day)
            for record in try simulator.advance(to: instant).notifications {
                let transaction = record.transactionId.flatMap(store.transaction(id:))
                let subscription =
                    transaction?.type == .autoRenewableSubscription
                    ? record.originalTransactionId.flatMap(store.subscription) : nil
                let body = try builder.body(
                    type: record.notificationType, subtype: record.subtype, transaction: transaction, subscription: subscription,
                    store: store, at: record.firstSendDate)
                guard let expected = NotificationV1Builder.notificationType(for: record.notificationType, subtype: record.subtype) else {
                    #expect(body == nil, "\(record.notificationType) \(String(describing: record.subtype)) has no V1 body")
                    withoutBody += 1
                    continue
                }
                let present = try #require(body)
                let decoded = try JSONDecoder().decode(NotificationV1.self, from: present)
                #expect(decoded.notificationType == expected)
                #expect(decoded.password == Scenario.sharedSecret)
                #expect(decoded.bid == store.bundleId)
                #expect(decoded.originalTransactionId == record.originalTransactionId)
                let receipt = try #require(decoded.unifiedReceipt)
                let listed = try #require(receipt.latestReceiptInfo).compactMap(\.transactionId)
                let transactionId = try #require(record.transactionId)
                #expect(listed.contains(transactionId))
                let latestReceipt = try #require(receipt.latestReceipt)
                let signed = try #require(verifier.verify(base64Encoded: latestReceipt, now: record.firstSendDate).receipt)
                #expect(Set(signed.inAppPurchases.compactMap(\.transactionId)) == Set(listed))
                if expected == .refund || expected == .revoke {
                    #expect(receipt.latestReceiptInfo?.first { $0.transactionId == record.transactionId }?.cancellationDate != nil)
                }
                seen[expected, default: 0] += 1
            }
        }
        for type in [NotificationTypeV1.initialBuy, .didRenew, .didChangeRenewalStatus, .didFailToRenew, .refund, .consumptionRequest] {
            #expect(seen[type, default: 0] > 0, "the population sent no \(type)")
        }
        #expect(withoutBody > 0)
    }
}
