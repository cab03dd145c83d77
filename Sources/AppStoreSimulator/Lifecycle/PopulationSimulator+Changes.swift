import AppStoreModels
import Foundation

extension PopulationSimulator {
    /// The customer turns auto-renew off or back on.
    func setAutoRenew(_ chain: String, on: Bool, at date: Date) throws {
        guard let truth = store.subscription(chain), truth.revocationDate == nil, truth.autoRenewStatus != on, date < truth.expiresDate else {
            return
        }
        store.modify(chain) { truth in
            truth.autoRenewStatus = on
            // Within a commitment the payments go on: nothing expires yet.
            truth.expirationIntent = on || (truth.commitment?.owesMorePeriods ?? false) ? nil : .customerCancelled
        }
        let subtype: Subtype = on ? .autoRenewEnabled : .autoRenewDisabled
        try notify(.didChangeRenewalStatus, subtype, chain: chain, at: date)
        try mirrorToFamily(chain, notification: (.didChangeRenewalStatus, subtype), newPeriod: nil, at: date)
    }

    /// Apple refunds the current period: it is revoked at once and the subscription ends.
    func refund(_ chain: String, at date: Date) throws {
        guard let truth = store.subscription(chain), truth.revocationDate == nil, date < truth.expiresDate,
            var transaction = store.transaction(id: truth.lastTransactionId)
        else { return }
        transaction.revocationDate = date
        transaction.revocationReason = random.chance(0.5) ? .refundedDueToIssue : .refundedForOtherReason
        transaction.revocationType = .refundFull
        transaction.revocationPercentage = 100_000
        store.record(transaction, customerId: truth.customerId)
        store.modify(chain) { truth in
            truth.revocationDate = date
            truth.autoRenewStatus = false
        }
        _ = bump(chain)
        try notify(.refund, nil, chain: chain, at: date, transaction: transaction)
        for member in familyMembers[chain] ?? [] {
            guard let copy = store.subscription(member), var memberTransaction = store.transaction(id: copy.lastTransactionId) else { continue }
            memberTransaction.revocationDate = date
            memberTransaction.revocationReason = .refundedForOtherReason
            memberTransaction.revocationType = .familyRevoke
            store.record(memberTransaction, customerId: copy.customerId)
            store.modify(member) { truth in
                truth.revocationDate = date
                truth.autoRenewStatus = false
            }
            try notify(.revoke, nil, chain: member, at: date, transaction: memberTransaction)
        }
    }

    /// An upgrade takes effect at once (a new transaction); a downgrade or a crossgrade to another
    /// duration at the next renewal.
    func changePlan(_ chain: String, to productId: String, at date: Date) throws {
        guard let truth = store.subscription(chain), truth.commitment == nil, truth.revocationDate == nil, !truth.isInBillingRetryPeriod,
            truth.autoRenewStatus,
            date < truth.expiresDate, let current = products[truth.productId], let target = products[productId]
        else { return }
        let targetPrice = target.price(in: storefront(ofChain: chain)).milliunits
        if (target.level ?? 1) < (current.level ?? 1) {
            if var previous = store.transaction(id: truth.lastTransactionId) {
                previous.isUpgraded = true
                store.record(previous, customerId: truth.customerId)
            }
            store.modify(chain) { truth in
                truth.autoRenewProductId = target.productId
                truth.renewalPrice = targetPrice
                truth.priceIncreaseStatus = nil
            }
            try startPeriod(chain, from: date, at: date, notification: (.didChangeRenewalPref, .upgrade), reason: .purchase)
        } else {
            store.modify(chain) { truth in
                truth.autoRenewProductId = target.productId
                truth.renewalPrice = targetPrice
                truth.priceIncreaseStatus = nil
            }
            try notify(.didChangeRenewalPref, .downgrade, chain: chain, at: date)
            try mirrorToFamily(chain, notification: (.didChangeRenewalPref, .downgrade), newPeriod: nil, at: date)
        }
    }

    /// Apple announces a price increase that needs the customer's consent.
    func announcePriceIncrease(_ chain: String, at date: Date) throws {
        guard let truth = store.subscription(chain), truth.revocationDate == nil, truth.autoRenewStatus, date < truth.expiresDate,
            truth.priceIncreaseStatus == nil
        else { return }
        store.modify(chain) { truth in
            truth.priceIncreaseStatus = .customerHasNotResponded
            truth.renewalPrice = (truth.renewalPrice ?? 0) * 6 / 5
        }
        try notify(.priceIncrease, .pending, chain: chain, at: date)
        try mirrorToFamily(chain, notification: (.priceIncrease, .pending), newPeriod: nil, at: date)
        if let consent = forcedConsent.removeValue(forKey: chain) {
            if consent {
                queue.schedule(
                    .priceConsent(chain: chain, token: tokens[chain] ?? 0),
                    at: min(date.addingTimeInterval(86_400), truth.expiresDate.addingTimeInterval(-1)))
            }
        } else if random.chance(behaviour.priceIncreaseConsentRate), let when = randomInstant(after: date, before: truth.expiresDate) {
            queue.schedule(.priceConsent(chain: chain, token: tokens[chain] ?? 0), at: when)
        }
    }

    func consentToPriceIncrease(_ chain: String, at date: Date) throws {
        guard let truth = store.subscription(chain), truth.priceIncreaseStatus == .customerHasNotResponded, date < truth.expiresDate else { return }
        store.modify(chain) { $0.priceIncreaseStatus = .customerConsentedOrWasNotifiedWithoutNeedingConsent }
        try notify(.priceIncrease, .accepted, chain: chain, at: date)
        try mirrorToFamily(chain, notification: (.priceIncrease, .accepted), newPeriod: nil, at: date)
    }

    /// A lapsed subscriber comes back through a win-back offer (the same chain resumes).
    func winBack(_ chain: String, at date: Date) throws {
        guard let truth = store.subscription(chain), truth.revocationDate == nil, !truth.isInBillingRetryPeriod, date >= truth.expiresDate else {
            return
        }
        let renewalPrice = products[truth.autoRenewProductId]?.price(in: storefront(ofChain: chain)).milliunits
        store.modify(chain) { truth in
            truth.recentSubscriptionStartDate = date
            truth.autoRenewStatus = true
            if let renewalPrice { truth.renewalPrice = renewalPrice }
        }
        try startPeriod(
            chain, from: date, at: date, notification: (.subscribed, .resubscribe), reason: .purchase, offer: (.winBackOffer, "winback.half"))
    }

    /// The purchaser shares the subscription with one family member, who gets a chain of their own.
    func shareWithFamily(_ chain: String, at date: Date) throws {
        guard let truth = store.subscription(chain), let source = store.transaction(id: truth.lastTransactionId),
            let product = products[truth.productId], let customer = chainCustomers[chain]
        else { return }
        var transaction = makeTransaction(
            product: product, originalTransactionId: nil, purchaseDate: date, originalPurchaseDate: nil, expiresDate: source.expiresDate,
            reason: .purchase, appAccountToken: nil, ownership: .familyShared, storefront: storefront(ofChain: chain), price: 0)
        transaction.offerType = source.offerType
        transaction.offerDiscountType = source.offerDiscountType
        transaction.offerPeriod = source.offerPeriod
        let member = transaction.originalTransactionId ?? ""
        let memberCustomer = "\(customerId(customer))-family"
        store.record(transaction, customerId: memberCustomer)
        var copy = truth
        copy.originalTransactionId = member
        copy.customerId = memberCustomer
        copy.ownership = .familyShared
        copy.lastTransactionId = transaction.transactionId ?? ""
        copy.appAccountToken = nil
        copy.sharedFrom = chain
        store.update(copy)
        familyMembers[chain, default: []].append(member)
        try notify(.subscribed, .initialBuy, chain: member, at: date, transaction: transaction)
    }

    /// Applies the purchaser's change to every family member's chain and notifies them alike.
    func mirrorToFamily(_ chain: String, notification: (NotificationTypeV2, Subtype?), newPeriod: JWSTransactionDecodedPayload?, at date: Date) throws
    {
        guard let members = familyMembers[chain], !members.isEmpty, let truth = store.subscription(chain) else { return }
        for member in members {
            guard let copy = store.subscription(member), copy.revocationDate == nil else { continue }
            var transaction = store.transaction(id: copy.lastTransactionId)
            if let newPeriod, let product = products[newPeriod.productId ?? ""] {
                var fresh = makeTransaction(
                    product: product, originalTransactionId: member, purchaseDate: newPeriod.purchaseDate ?? date,
                    originalPurchaseDate: transaction?.originalPurchaseDate, expiresDate: newPeriod.expiresDate,
                    reason: newPeriod.transactionReason ?? .renewal, appAccountToken: nil, ownership: .familyShared,
                    storefront: storefront(ofChain: chain), price: 0)
                fresh.offerType = newPeriod.offerType
                fresh.offerIdentifier = newPeriod.offerIdentifier
                store.record(fresh, customerId: copy.customerId)
                transaction = fresh
            }
            store.modify(member) { copy in
                copy.productId = truth.productId
                copy.autoRenewProductId = truth.autoRenewProductId
                copy.autoRenewStatus = truth.autoRenewStatus
                copy.expiresDate = truth.expiresDate
                copy.isInBillingRetryPeriod = truth.isInBillingRetryPeriod
                copy.gracePeriodExpiresDate = truth.gracePeriodExpiresDate
                copy.expirationIntent = truth.expirationIntent
                copy.priceIncreaseStatus = truth.priceIncreaseStatus
                copy.renewalPrice = truth.renewalPrice
                copy.recentSubscriptionStartDate = truth.recentSubscriptionStartDate
                if let id = transaction?.transactionId { copy.lastTransactionId = id }
            }
            try notify(notification.0, notification.1, chain: member, at: date, transaction: transaction)
        }
    }
}
