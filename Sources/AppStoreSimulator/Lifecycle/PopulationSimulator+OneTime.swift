import AppStoreModels
import Foundation

extension PopulationSimulator {
    /// Plans a customer's consumables (a chance each month), the non-consumable and a pass.
    func planOneTimePurchases(_ customer: Int, from date: Date) {
        let end = configuration.end
        for product in configuration.products.sorted(by: { $0.productId < $1.productId }) {
            switch product.type {
            case .consumable:
                var month = date
                while month < end {
                    let next = month.addingTimeInterval(30 * 86_400)
                    if random.chance(behaviour.consumableRate), let when = randomInstant(after: month, before: min(next, end)) {
                        queue.schedule(.oneTime(customer: customer, productId: product.productId), at: when)
                    }
                    month = next
                }
            case .nonConsumable:
                if random.chance(behaviour.nonConsumableRate), let when = randomInstant(after: date, before: end) {
                    queue.schedule(.oneTime(customer: customer, productId: product.productId), at: when)
                }
            case .nonRenewingSubscription:
                if random.chance(behaviour.nonRenewingRate), let when = randomInstant(after: date, before: end) {
                    queue.schedule(.oneTime(customer: customer, productId: product.productId), at: when)
                }
            default:
                continue
            }
        }
    }

    /// A one-time purchase: Apple sends `ONE_TIME_CHARGE`; the device reports the transaction.
    func buyOnce(_ customer: Int, productId: String, at date: Date, appAccountToken: String? = nil) throws {
        guard let product = products[productId] else { return }
        let customerId = customerId(customer)
        if product.type == .nonConsumable,
            store.transactions(ofCustomer: customerId).contains(where: { $0.productId == productId && $0.revocationDate == nil })
        {
            return
        }
        let token = appAccountToken ?? store.transactions(ofCustomer: customerId).first?.appAccountToken
        let transaction = makeTransaction(
            product: product, originalTransactionId: nil, purchaseDate: date, originalPurchaseDate: nil, expiresDate: nil,
            reason: .purchase, appAccountToken: token, storefront: storefront(ofCustomer: customer))
        store.record(transaction, customerId: customerId, orderId: "MK\(transaction.transactionId ?? "")")
        try emit(.oneTimeCharge, nil, transaction: transaction, subscription: nil, at: date)
        try reportPurchase(transaction, customer: customer, at: date)
        if product.type == .consumable, random.chance(behaviour.consumableRefundRequestRate), let id = transaction.transactionId,
            let when = randomInstant(after: date, before: date.addingTimeInterval(5 * 86_400))
        {
            queue.schedule(.consumptionRequest(transactionId: id), at: when)
        }
    }

    /// The customer asks Apple for a refund of a consumable: Apple asks the app for consumption
    /// information, then decides within days.
    func requestConsumption(_ transactionId: String, at date: Date) throws {
        guard let transaction = store.transaction(id: transactionId), transaction.revocationDate == nil else { return }
        try emit(.consumptionRequest, nil, transaction: transaction, subscription: nil, at: date, reason: .unintendedPurchase)
        if let when = randomInstant(after: date.addingTimeInterval(86_400), before: date.addingTimeInterval(3 * 86_400)) {
            queue.schedule(.refundDecision(transactionId: transactionId, refunded: random.chance(0.5)), at: when)
        }
    }

    func decideRefund(_ transactionId: String, refunded: Bool, at date: Date) throws {
        guard var transaction = store.transaction(id: transactionId), transaction.revocationDate == nil,
            let customerId = store.customer(ofTransaction: transactionId)
        else { return }
        guard refunded else {
            try emit(.refundDeclined, nil, transaction: transaction, subscription: nil, at: date)
            return
        }
        transaction.revocationDate = date
        transaction.revocationReason = .refundedForOtherReason
        transaction.revocationType = .refundFull
        transaction.revocationPercentage = 100_000
        store.record(transaction, customerId: customerId)
        try emit(.refund, nil, transaction: transaction, subscription: nil, at: date)
    }
}
