import AppStoreModels
import Foundation

@testable import AppStoreSimulator

extension SimulatorHTTPFixture {
    static let weeklyOriginal = "1000001"
    static let weeklyLatest = "1000025"
    static let refundedCoins = "2000001"
    static let keptCoins = "2000002"
    static let monthlyOriginal = "3000001"
    static let lifetimeUnlock = "3000010"

    /// Fills the store: alice (weekly chain, two consumables), bob (expired monthly, lifetime
    /// unlock), and a notification per event with its send attempts.
    static func populate(store: SimulatedAppStore, signer: SimulatorSigner) throws {
        var notifications: [(Date, NotificationTypeV2, Subtype?, JWSTransactionDecodedPayload, [SendAttemptResult])] = []
        func purchase(
            _ id: String, original: String, product: String, type: ProductType, group: String?, at date: Date, expires: Date?,
            customer: String, order: String? = nil
        ) -> JWSTransactionDecodedPayload {
            var transaction = JWSTransactionDecodedPayload(
                originalTransactionId: original, transactionId: id, webOrderLineItemId: type == .autoRenewableSubscription ? "9\(id)" : nil,
                bundleId: bundleId, productId: product, subscriptionGroupIdentifier: group, purchaseDate: date,
                originalPurchaseDate: date, expiresDate: expires, quantity: 1, type: type, inAppOwnershipType: .purchased)
            transaction.environment = store.environment
            transaction.storefront = "USA"
            transaction.storefrontId = "143441"
            transaction.transactionReason = id == original ? .purchase : .renewal
            transaction.currency = "USD"
            transaction.price = type == .consumable ? 990 : 1990
            if let original = store.transaction(id: original), original.transactionId != id {
                transaction.originalPurchaseDate = original.purchaseDate
            }
            store.record(transaction, customerId: customer, orderId: order ?? "MK\(id)")
            return transaction
        }

        // alice: 25 weekly periods, the last one active now.
        for index in 0..<25 {
            let date = start.addingTimeInterval(-Double(24 - index) * 7 * day - day)
            var transaction = purchase(
                String(1_000_001 + index), original: weeklyOriginal, product: "pro.weekly", type: .autoRenewableSubscription,
                group: "G1", at: date, expires: date.addingTimeInterval(7 * day), customer: "alice")
            if index == 0 {
                transaction.offerType = .introductoryOffer
                transaction.offerDiscountType = .freeTrial
                store.record(transaction, customerId: "alice")
            }
            notifications.append((date, index == 0 ? .subscribed : .didRenew, index == 0 ? .initialBuy : nil, transaction, [.success]))
        }
        var weekly = SubscriptionTruth(
            originalTransactionId: weeklyOriginal, customerId: "alice", subscriptionGroupIdentifier: "G1", productId: "pro.weekly",
            expiresDate: start.addingTimeInterval(6 * day), lastTransactionId: weeklyLatest,
            recentSubscriptionStartDate: start.addingTimeInterval(-169 * day), renewalPrice: 1990)
        weekly.autoRenewStatus = true
        store.update(weekly)

        // alice: two consumables in one order, the first refunded.
        var refunded = purchase(
            refundedCoins, original: refundedCoins, product: "coins.100", type: .consumable, group: nil,
            at: start.addingTimeInterval(-3 * day), expires: nil, customer: "alice", order: "MKCOINS")
        _ = purchase(
            keptCoins, original: keptCoins, product: "coins.100", type: .consumable, group: nil,
            at: start.addingTimeInterval(-2 * day), expires: nil, customer: "alice", order: "MKCOINS")
        refunded.revocationDate = start.addingTimeInterval(-day)
        refunded.revocationReason = .refundedDueToIssue
        refunded.revocationType = .refundFull
        store.record(refunded, customerId: "alice")
        notifications.append((start.addingTimeInterval(-day), .refund, nil, refunded, [.timedOut, .timedOut]))

        // bob: an expired monthly subscription and a non-consumable.
        let first = purchase(
            monthlyOriginal, original: monthlyOriginal, product: "pro.monthly", type: .autoRenewableSubscription,
            group: "G1", at: start.addingTimeInterval(-60 * day), expires: start.addingTimeInterval(-30 * day), customer: "bob")
        let second = purchase(
            "3000002", original: monthlyOriginal, product: "pro.monthly", type: .autoRenewableSubscription,
            group: "G1", at: start.addingTimeInterval(-30 * day), expires: start.addingTimeInterval(-day), customer: "bob")
        var monthly = SubscriptionTruth(
            originalTransactionId: monthlyOriginal, customerId: "bob", subscriptionGroupIdentifier: "G1", productId: "pro.monthly",
            autoRenewStatus: false, expiresDate: start.addingTimeInterval(-day), lastTransactionId: "3000002",
            recentSubscriptionStartDate: start.addingTimeInterval(-60 * day), renewalPrice: 4990)
        monthly.expirationIntent = .customerCancelled
        store.update(monthly)
        _ = purchase(
            lifetimeUnlock, original: lifetimeUnlock, product: "lifetime.unlock", type: .nonConsumable, group: nil,
            at: start.addingTimeInterval(-5 * day), expires: nil, customer: "bob")
        notifications.append((first.purchaseDate ?? start, .subscribed, .initialBuy, first, [.success]))
        notifications.append((second.purchaseDate ?? start, .didRenew, nil, second, [.success]))
        notifications.append((start.addingTimeInterval(-day), .expired, .voluntary, second, [.noResponse, .success]))

        for (index, event) in notifications.sorted(by: { $0.0 < $1.0 }).enumerated() {
            let (date, type, subtype, transaction, attempts) = event
            let uuid = String(format: "00000000-0000-4000-8000-%012d", index)
            let subscription = transaction.originalTransactionId.flatMap(store.subscription)
            let signed = try signer.signNotification(
                type: type, subtype: subtype, uuid: uuid, transaction: transaction, subscription: subscription, store: store, signedDate: date)
            store.recordNotification(
                NotificationRecord(
                    notificationUUID: uuid, notificationType: type, subtype: subtype, originalTransactionId: transaction.originalTransactionId,
                    transactionId: transaction.transactionId, firstSendDate: date, signedPayload: signed))
            for (offset, result) in attempts.enumerated() {
                store.recordSendAttempt(notificationUUID: uuid, at: date.addingTimeInterval(Double(offset) * 3600), result: result)
            }
        }
    }
}
