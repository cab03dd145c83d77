import AppStoreModels
import Foundation

extension PopulationSimulator {
    var subscriptionProducts: [SimulatedProduct] {
        configuration.products.filter { $0.type == .autoRenewableSubscription }.sorted { $0.productId < $1.productId }
    }

    /// A new customer: subscribes (perhaps with a trial or an offer code, perhaps sharing with
    /// family) and plans one-time purchases.
    func arrive(_ customer: Int, at date: Date) throws {
        let appAccountToken = appAccountToken(of: customer, made: newUUID())
        let subscriptions = subscriptionProducts
        if !subscriptions.isEmpty, random.chance(behaviour.subscribeRate) {
            // Most pick the cheapest monthly plan, some the yearly, some the top level.
            let roll = Double.random(in: 0..<1, using: &random)
            let sorted = subscriptions.sorted { ($0.level ?? 1, $0.price) > ($1.level ?? 1, $1.price) }
            let product =
                roll < 0.6
                ? sorted.first(where: { $0.period == "P1M" }) ?? sorted[0]
                : roll < 0.85
                    ? sorted.first(where: { $0.period == "P1Y" }) ?? sorted[0]
                    : sorted.last ?? sorted[0]
            try subscribe(customer, product: product, appAccountToken: appAccountToken, at: date)
        }
        planOneTimePurchases(customer, from: date)
    }

    func subscribe(_ customer: Int, product: SimulatedProduct, appAccountToken: String, at date: Date, offer: String? = nil) throws {
        var trial = false
        var offerCode = false
        if let offer {
            trial = offer == "trial" && (product.freeTrialDays ?? 0) > 0
            offerCode = offer == "offerCode"
        } else if let days = product.freeTrialDays, days > 0, random.chance(behaviour.trialRate) {
            trial = true
        } else if random.chance(behaviour.offerCodeRate) {
            offerCode = true
        }
        let storefront = storefront(ofCustomer: customer)
        // A one-year product's monthly plan with a 12-month commitment, for some who pay in full.
        var commitment: CommitmentTruth?
        if !trial, !offerCode, behaviour.commitmentPlanRate > 0, let monthly = product.monthlyCommitmentPrice(in: storefront),
            commitmentRandom.chance(behaviour.commitmentPlanRate)
        {
            commitment = CommitmentTruth(number: 1, expiresDate: commitmentEnd(from: date), monthlyPrice: monthly.milliunits)
        }
        let expires =
            trial ? trialEnd(days: product.freeTrialDays ?? 7, from: date) : commitment != nil ? monthEnd(from: date) : periodEnd(product, from: date)
        let local =
            commitment.map { (milliunits: $0.monthlyPrice, currency: product.monthlyCommitmentPrice(in: storefront)?.currency ?? "USD") }
            ?? product.price(in: storefront)
        var transaction = makeTransaction(
            product: product, originalTransactionId: nil, purchaseDate: date, originalPurchaseDate: nil, expiresDate: expires,
            reason: .purchase, appAccountToken: appAccountToken, storefront: storefront,
            price: trial ? 0 : offerCode ? local.milliunits / 2 : local.milliunits)
        if let commitment {
            transaction.currency = local.currency
            transaction.billingPlanType = .monthly
            transaction.commitmentInfo = commitment.transactionInfo(currency: local.currency)
        }
        if trial {
            transaction.offerType = .introductoryOffer
            transaction.offerDiscountType = .freeTrial
            transaction.offerPeriod = "P\(product.freeTrialDays ?? 7)D"
        } else if offerCode {
            transaction.offerType = .offerCode
            transaction.offerIdentifier = "WELCOME50"
            transaction.offerDiscountType = .payAsYouGo
            transaction.offerPeriod = "P1M"
        }
        let chain = transaction.originalTransactionId ?? ""
        store.record(transaction, customerId: customerId(customer), orderId: "MK\(transaction.transactionId ?? "")")
        store.update(
            SubscriptionTruth(
                originalTransactionId: chain, customerId: customerId(customer),
                subscriptionGroupIdentifier: product.subscriptionGroupIdentifier ?? "", productId: product.productId, expiresDate: expires,
                lastTransactionId: transaction.transactionId ?? "", appAccountToken: appAccountToken, recentSubscriptionStartDate: date,
                renewalPrice: local.milliunits, currency: local.currency))
        if let commitment { store.modify(chain) { $0.commitment = commitment } }
        chainCustomers[chain] = customer
        let token = bump(chain)
        try notify(.subscribed, .initialBuy, chain: chain, at: date)
        try reportPurchase(transaction, customer: customer, at: date)
        if product.familyShareable, random.chance(behaviour.familySharingRate), commitment == nil {
            try shareWithFamily(chain, at: date)
        }
        queue.schedule(.renew(chain: chain, due: expires), at: expires)
        if trial {
            if !random.chance(behaviour.trialConversion), let cancel = randomInstant(after: date, before: expires) {
                queue.schedule(.autoRenew(chain: chain, token: token, on: false), at: cancel)
            }
        } else {
            planPeriod(chain, token: token, product: product, from: date, to: expires)
        }
    }

    /// Mid-period decisions of a paid period: churn, refund, plan changes, price increase.
    func planPeriod(_ chain: String, token: Int, product: SimulatedProduct, from start: Date, to end: Date) {
        if random.chance(behaviour.churnRate), let off = randomInstant(after: start, before: end) {
            queue.schedule(.autoRenew(chain: chain, token: token, on: false), at: off)
            if random.chance(behaviour.reenableRate), let on = randomInstant(after: off, before: end) {
                queue.schedule(.autoRenew(chain: chain, token: token, on: true), at: on)
            }
        }
        if random.chance(behaviour.refundRate), let when = randomInstant(after: start, before: end) {
            queue.schedule(.refund(chain: chain, token: token), at: when)
        }
        // A commitment's plan and price hold until it ends: no plan changes or price increases.
        guard store.subscription(chain)?.commitment == nil else { return }
        let level = product.level ?? 1
        let group = subscriptionProducts.filter {
            $0.subscriptionGroupIdentifier == product.subscriptionGroupIdentifier && $0.productId != product.productId
        }
        let choices: [(Double, SimulatedProduct?)] = [
            (behaviour.upgradeRate, group.first { ($0.level ?? 1) < level }),
            (behaviour.downgradeRate, group.first { ($0.level ?? 1) > level }),
            (behaviour.crossgradeRate, group.first { ($0.level ?? 1) == level && $0.period != product.period }),
        ]
        for (rate, target) in choices {
            if let target, random.chance(rate), let when = randomInstant(after: start, before: end) {
                queue.schedule(.changePlan(chain: chain, token: token, productId: target.productId), at: when)
            }
        }
        if product.period == "P1M", random.chance(behaviour.priceIncreaseRate),
            let when = randomInstant(after: start, before: start.addingTimeInterval(end.timeIntervalSince(start) / 2))
        {
            queue.schedule(.priceIncrease(chain: chain, token: token), at: when)
        }
    }

    /// The end of a period: renew, lapse (voluntarily or after a refused price increase) or fail billing.
    func renew(_ chain: String, due: Date, at date: Date) throws {
        guard let truth = store.subscription(chain), truth.expiresDate == due, truth.revocationDate == nil,
            !truth.isInBillingRetryPeriod, truth.sharedFrom == nil
        else { return }
        if !truth.willAutoRenew {
            try lapse(chain, intent: .customerCancelled, subtype: .voluntary, at: date)
            if random.chance(behaviour.winBackRate), let when = randomInstant(after: date, before: date.addingTimeInterval(45 * 86_400)) {
                queue.schedule(.winBack(chain: chain, token: tokens[chain] ?? 0), at: when)
            }
            return
        }
        if truth.priceIncreaseStatus == .customerHasNotResponded {
            try lapse(chain, intent: .customerDidNotConsentToPriceIncrease, subtype: .priceIncrease, at: date)
            return
        }
        if let plan = forcedBilling.removeValue(forKey: chain) {
            try failBilling(chain, due: due, at: date, plan: plan)
            return
        }
        if random.chance(behaviour.billingFailureRate) {
            try failBilling(chain, due: due, at: date)
            return
        }
        try startPeriod(chain, from: due, at: date, notification: (.didRenew, nil))
    }

    /// A new paid period of the chain's auto-renew product, starting at `start`.
    func startPeriod(
        _ chain: String, from start: Date, at date: Date, notification: (NotificationTypeV2, Subtype?), reason: TransactionReason = .renewal,
        offer: (OfferType, String)? = nil
    ) throws {
        guard let truth = store.subscription(chain), let product = products[truth.autoRenewProductId] else { return }
        // An offer redeemed for the next renewal applies to the period a renewal starts.
        let offer = offer ?? (reason == .renewal ? truth.pendingOffer.map { ($0.type, $0.identifier) } : nil)
        // A commitment's next payment, or the first of a new commitment after its last.
        var commitment = truth.commitment
        if var current = commitment {
            if current.owesMorePeriods {
                current.number += 1
            } else {
                current = CommitmentTruth(number: 1, expiresDate: commitmentEnd(from: start), monthlyPrice: current.monthlyPrice)
            }
            commitment = current
        }
        let expires = commitment != nil ? monthEnd(from: start) : periodEnd(product, from: start)
        let first = store.transaction(id: chain)
        let storefront = storefront(ofChain: chain)
        let price = commitment?.monthlyPrice ?? truth.renewalPrice ?? product.price(in: storefront).milliunits
        var transaction = makeTransaction(
            product: product, originalTransactionId: chain, purchaseDate: start, originalPurchaseDate: first?.originalPurchaseDate,
            expiresDate: expires, reason: reason, appAccountToken: truth.appAccountToken, storefront: storefront,
            price: offer == nil ? price : price / 2)
        if let (type, id) = offer {
            transaction.offerType = type
            transaction.offerIdentifier = id
            transaction.offerDiscountType = .payAsYouGo
            transaction.offerPeriod = "P1M"
        }
        if let commitment {
            transaction.currency = truth.currency
            transaction.billingPlanType = .monthly
            transaction.commitmentInfo = commitment.transactionInfo(currency: truth.currency)
        }
        store.record(transaction, customerId: truth.customerId)
        store.modify(chain) { truth in
            truth.productId = product.productId
            truth.expiresDate = expires
            truth.lastTransactionId = transaction.transactionId ?? truth.lastTransactionId
            truth.isInBillingRetryPeriod = false
            truth.gracePeriodExpiresDate = nil
            truth.expirationIntent = nil
            truth.priceIncreaseStatus = nil
            truth.renewalPrice = price
            // A commitment's next payment keeps the customer's choice about what follows it.
            truth.autoRenewStatus = (commitment?.number ?? 1) > 1 ? truth.autoRenewStatus : true
            truth.pendingOffer = nil
            truth.commitment = commitment
        }
        let token = bump(chain)
        try notify(notification.0, notification.1, chain: chain, at: date, transaction: transaction)
        if reason == .purchase, let customer = chainCustomers[chain] { try reportPurchase(transaction, customer: customer, at: date) }
        try mirrorToFamily(chain, notification: notification, newPeriod: transaction, at: date)
        queue.schedule(.renew(chain: chain, due: expires), at: expires)
        // A period recovered in the grace period starts at the lapse, in the past: what the
        // customer decides in it happens after the recovery, never before it was known.
        planPeriod(chain, token: token, product: product, from: max(start, date), to: expires)
    }

    /// The subscription ends at its expiry without renewing.
    func lapse(_ chain: String, intent: ExpirationIntent, subtype: Subtype, at date: Date) throws {
        store.modify(chain) { truth in
            truth.commitment = nil
            truth.autoRenewStatus = false
            truth.expirationIntent = intent
            truth.isInBillingRetryPeriod = false
            truth.gracePeriodExpiresDate = nil
        }
        _ = bump(chain)
        try notify(.expired, subtype, chain: chain, at: date)
        try mirrorToFamily(chain, notification: (.expired, subtype), newPeriod: nil, at: date)
    }

    /// A failed renewal: billing retry, with a grace period when the app has one.
    func failBilling(_ chain: String, due: Date, at date: Date, plan: String? = nil) throws {
        let graceDays = Double(behaviour.gracePeriodDays)
        let graceEnd = graceDays > 0 ? due.addingTimeInterval(graceDays * 86_400) : nil
        store.modify(chain) { truth in
            truth.isInBillingRetryPeriod = true
            truth.expirationIntent = .billingError
            truth.gracePeriodExpiresDate = graceEnd
        }
        store.beginBillingEpisode(chain, due: due, graceEnd: graceEnd)
        let token = bump(chain)
        try notify(.didFailToRenew, graceEnd == nil ? nil : .gracePeriod, chain: chain, at: date)
        try mirrorToFamily(chain, notification: (.didFailToRenew, graceEnd == nil ? nil : .gracePeriod), newPeriod: nil, at: date)
        let retryEnd = due.addingTimeInterval(60 * 86_400)
        if let plan {
            if let graceEnd { queue.schedule(.graceExpired(chain: chain, token: token), at: graceEnd) }
            switch plan {
            case "grace" where graceEnd != nil:
                queue.schedule(.billingOutcome(chain: chain, token: token, recovered: true), at: due.addingTimeInterval(graceDays * 43_200))
            case "grace", "retry":
                queue.schedule(.billingOutcome(chain: chain, token: token, recovered: true), at: (graceEnd ?? due).addingTimeInterval(5 * 86_400))
            default:
                queue.schedule(.billingOutcome(chain: chain, token: token, recovered: false), at: retryEnd)
            }
            return
        }
        if let graceEnd, random.chance(behaviour.graceRecoveryRate), let when = randomInstant(after: due, before: graceEnd) {
            queue.schedule(.billingOutcome(chain: chain, token: token, recovered: true), at: when)
            return
        }
        if let graceEnd { queue.schedule(.graceExpired(chain: chain, token: token), at: graceEnd) }
        if random.chance(behaviour.retryRecoveryRate), let when = randomInstant(after: graceEnd ?? due, before: retryEnd) {
            queue.schedule(.billingOutcome(chain: chain, token: token, recovered: true), at: when)
        } else {
            queue.schedule(.billingOutcome(chain: chain, token: token, recovered: false), at: retryEnd)
        }
    }

    /// Apple's billing retry ends: the charge went through, or Apple gives up after 60 days.
    func finishBillingRetry(_ chain: String, recovered: Bool, at date: Date) throws {
        guard let truth = store.subscription(chain), truth.isInBillingRetryPeriod else { return }
        store.endBillingEpisode(chain, at: date, recovered: recovered)
        guard recovered else {
            try lapse(chain, intent: .billingError, subtype: .billingRetry, at: date)
            return
        }
        // Recovered inside the grace period: the period keeps its renewal date. Later: the
        // renewal date moves to the day of recovery.
        let inGrace = truth.gracePeriodExpiresDate.map { date < $0 } ?? false
        if !inGrace { store.modify(chain) { $0.recentSubscriptionStartDate = date } }
        try startPeriod(chain, from: inGrace ? truth.expiresDate : date, at: date, notification: (.didRenew, .billingRecovery))
    }
}
