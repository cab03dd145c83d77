import Foundation

extension SubscriptionState {
    /// The state of one chain at `instant`, or `nil` when none of its periods had begun.
    ///
    /// Rules, in order:
    /// - Only periods bought by `instant` count; input order does not matter. What is known
    ///   about a period (its refund, the upgrade that ended it) applies whenever it is dated.
    /// - A period gives access from its purchase date until its expiry, cut short by a
    ///   revocation (`cancellation_date` / `revocationDate` win over `expires_date`) or, for a
    ///   period the customer upgraded away from, by the upgrade (its revocation date, else the
    ///   start of the next period).
    /// - A chain runs one period at a time: a later period that starts before an earlier one
    ///   expires ends it, whether or not the earlier transaction was seen again with
    ///   `isUpgraded` (the notification carrying the flag may be lost, and the statuses
    ///   endpoint shows only the latest transaction).
    /// - `active` when a period covers the instant; `revoked` when the latest period was
    ///   refunded or revoked from Family Sharing (an upgrade is not a revocation); `gracePeriod`
    ///   while Apple's grace period runs; `billingRetry` while Apple retries (at most
    ///   ``EngineConfiguration/billingRetryLimit`` after expiry); `expired` otherwise.
    /// - Grace, retry and the reason of an expiry come from what Apple said about the renewal
    ///   in force at `instant` (``renewal(_:timeline:after:nextStart:at:)``): the latest renewal
    ///   fact for the present, the billing episode that followed the lapsed period for the past.
    static func evaluate(
        periods unsorted: [PurchaseFact],
        renewal latestRenewal: RenewalFact?,
        timeline: [RenewalFact] = [],
        catalog: Catalog,
        at instant: Date,
        configuration: EngineConfiguration
    ) -> SubscriptionState? {
        evaluate(
            chronological: unsorted.sorted(by: PurchaseFact.chronologically), renewal: latestRenewal, timeline: timeline, catalog: catalog,
            at: instant, configuration: configuration)
    }

    /// ``evaluate(periods:renewal:timeline:catalog:at:configuration:)`` of periods already in
    /// ``PurchaseFact/chronologically(_:_:)`` order: a timeline evaluates one chain at many
    /// instants, and sorting it again at each (copying every fact) was a fifth of an analytics
    /// build.
    static func evaluate(
        chronological chain: [PurchaseFact],
        renewal latestRenewal: RenewalFact?,
        timeline: [RenewalFact],
        catalog: Catalog,
        at instant: Date,
        configuration: EngineConfiguration
    ) -> SubscriptionState? {
        let begun = chain.prefix { $0.purchaseDate <= instant }
        let periods = Array(begun)
        guard let latest = periods.last else { return nil }

        var current = latest
        var currentEnd = accessEnd(of: periods.count - 1, in: chain)
        var covering = false
        for index in periods.indices.reversed() {
            let period = periods[index]
            if let end = accessEnd(of: index, in: chain), period.purchaseDate <= instant, instant < end {
                current = period
                currentEnd = end
                covering = true
                break
            }
        }

        let status: SubscriptionStatus
        var reason: ExpirationReason?
        var grace: Date?
        var accessEnds = currentEnd
        let nextStart = chain.first { $0.purchaseDate > instant }?.purchaseDate
        let renewal = covering ? latestRenewal : Self.renewal(latestRenewal, timeline: timeline, after: latest, nextStart: nextStart, at: instant)
        if covering {
            status = .active
        } else if latest.isRevoked(at: instant) {
            status = .revoked
        } else if let graceEnd = renewal?.gracePeriodExpiresDate, instant < graceEnd,
            renewal?.isInBillingRetry != false, graceEnd > (latest.expiresDate ?? latest.purchaseDate)
        {
            status = .gracePeriod
            grace = graceEnd
            accessEnds = graceEnd
        } else if renewal?.isInBillingRetry == true,
            instant < (latest.expiresDate ?? latest.purchaseDate).addingTimeInterval(configuration.billingRetryLimit)
        {
            status = .billingRetry
            reason = .billingError
        } else {
            status = .expired
            // Within a commitment the customer's "off" applies at its end, not to a month's end.
            let committed = latest.commitment?.owesMorePeriods ?? false
            reason =
                renewal?.expirationReason
                ?? (renewal?.isInBillingRetry == true ? .billingError : nil)
                ?? (renewal?.willAutoRenew == false && !committed ? .voluntary : nil)
        }
        if status == .billingRetry, let stated = renewal?.expirationReason, stated != .voluntary {
            reason = stated
        }

        let group = current.subscriptionGroupIdentifier ?? catalog.product(current.productId)?.subscriptionGroupIdentifier
        let renewalNow = latestRenewal
        // A monthly plan with a 12-month commitment renews every month until the commitment's
        // last payment, whatever the customer chose; from the last one, what renews after the
        // commitment says (Apple's commitment auto-renew status, else the renewal's). A
        // commitment that lapsed (Apple gave up charging) or was revoked renews no more.
        var willAutoRenew = renewalNow?.willAutoRenew
        var nextRenewalProduct = renewalNow?.autoRenewProductId
        // Lapsed: revoked, or expired for a stated reason (between a month's end and the next
        // payment there is none: the payment is awaited).
        let lapsed = status == .revoked || (status == .expired && reason != nil)
        if let commitment = current.commitment, !lapsed {
            if commitment.owesMorePeriods {
                willAutoRenew = true
                nextRenewalProduct = current.productId
            } else if let after = renewalNow?.commitmentRenewal {
                willAutoRenew = after.willAutoRenew ?? willAutoRenew
                nextRenewalProduct = after.autoRenewProductId ?? nextRenewalProduct
            }
        }
        var nextProduct: String?
        if let next = nextRenewalProduct, next != current.productId, willAutoRenew != false {
            nextProduct = next
        }
        var state = SubscriptionState(
            originalTransactionId: current.originalTransactionId,
            transactionId: current.transactionId,
            productId: current.productId,
            subscriptionGroupIdentifier: group,
            status: status,
            purchaseDate: current.purchaseDate,
            expiresDate: current.expiresDate,
            gracePeriodExpiresDate: grace,
            originalPurchaseDate: periods.first?.originalPurchaseDate ?? periods.first?.purchaseDate,
            willAutoRenew: willAutoRenew,
            nextProductId: nextProduct,
            expirationReason: reason,
            offer: current.offer,
            ownership: current.ownership,
            revocation: status == .revoked ? current.revocation : nil,
            priceIncreaseConsent: renewalNow?.priceIncreaseConsent,
            eligibleWinBackOfferIds: renewalNow?.eligibleWinBackOfferIds,
            accessEndsDate: accessEnds
        )
        state.billingPlanType = current.billingPlanType
        state.commitment = current.commitment
        state.commitmentRenewal = current.commitment == nil ? nil : renewalNow?.commitmentRenewal
        return state
    }

    /// What Apple said about the renewal of a chain whose latest begun period, `lapsed`, gives no
    /// access at `instant`. The latest renewal fact when it was signed at or before `instant` (or
    /// is undated). For an earlier instant, the billing episode that followed the lapsed period's
    /// expiry, as the dated facts signed after it (and before the chain's next period) tell it:
    /// the first that says Apple is retrying describes the grace period and the retry, which last
    /// until a later fact says Apple stopped; with no such fact the renewal did not fail.
    static func renewal(
        _ latest: RenewalFact?, timeline: [RenewalFact], after lapsed: PurchaseFact, nextStart: Date?, at instant: Date
    )
        -> RenewalFact?
    {
        guard let latest, let signed = latest.signedDate, instant < signed else { return latest }
        let due = lapsed.expiresDate ?? lapsed.purchaseDate
        let episode = timeline.filter { fact in
            guard let date = fact.signedDate else { return false }
            return date >= due && date < (nextStart ?? .distantFuture)
        }
        guard let failure = episode.first(where: { $0.isInBillingRetry == true }), let failed = failure.signedDate else {
            return episode.first ?? RenewalFact(originalTransactionId: latest.originalTransactionId, isInBillingRetry: false)
        }
        if let stop = episode.first(where: { ($0.signedDate ?? .distantPast) > failed && $0.isInBillingRetry == false }),
            let stopped = stop.signedDate, stopped <= instant
        {
            return stop
        }
        return failure
    }

    /// The end of the access period `index` gives: its expiry, cut short by a revocation or by
    /// the start of a later period of the chain (always for an upgraded period; for any period
    /// a later one starts inside). `nil` when it has no end date at all.
    static func accessEnd(of index: Int, in periods: [PurchaseFact]) -> Date? {
        let period = periods[index]
        var end = period.expiresDate
        if let revocation = period.revocation, revocation.removesAccess || period.isUpgraded {
            end = min(end ?? revocation.date, revocation.date)
        }
        let nextStart = periods[(index + 1)...].first { $0.purchaseDate > period.purchaseDate }?.purchaseDate
        if let nextStart, period.isUpgraded || (end.map { nextStart < $0 } ?? false) {
            end = min(end ?? nextStart, nextStart)
        }
        return end
    }
}

extension PurchaseFact {
    /// Oldest first: by purchase date, then expiry, then transaction id, so the order is total.
    static func chronologically(_ a: PurchaseFact, _ b: PurchaseFact) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate < b.purchaseDate }
        let ea = a.expiresDate ?? .distantPast
        let eb = b.expiresDate ?? .distantPast
        if ea != eb { return ea < eb }
        return a.transactionId < b.transactionId
    }
}
