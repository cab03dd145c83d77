import Foundation

extension GroupEligibility {
    /// Eligibility in `group` at `instant`, from the customer's own purchases in the group and
    /// the states of the group's subscriptions.
    static func evaluate(
        group: String,
        purchases: [PurchaseFact],
        states: [SubscriptionState],
        at instant: Date,
        rule: IntroductoryOfferRule
    ) -> GroupEligibility {
        let bought = purchases.filter { $0.ownership == .purchased && $0.purchaseDate <= instant }
        let owned = states.filter { $0.ownership == .purchased }

        let standing: EligibilityReason?
        if owned.contains(where: { $0.status == .active }) {
            standing = .currentlySubscribed
        } else if owned.contains(where: { $0.status == .gracePeriod }) {
            standing = .inGracePeriod
        } else if owned.contains(where: { $0.status == .billingRetry }) {
            standing = .inBillingRetry
        } else {
            standing = nil
        }

        let intro: (Bool, EligibilityReason)
        switch rule {
        case .neverSubscribedInGroup:
            intro = bought.isEmpty ? (true, .neverSubscribed) : (false, .previouslySubscribed)
        case .unusedIntroductoryOfferAndNotSubscribed:
            if let standing {
                intro = (false, standing)
            } else if bought.contains(where: { $0.offer?.kind.isIntroductory == true }) {
                intro = (false, .introductoryOfferUsed)
            } else if bought.contains(where: { $0.isRevoked(at: instant) }) {
                intro = (false, .refunded)
            } else {
                intro = (true, bought.isEmpty ? .neverSubscribed : .introductoryOfferNotUsed)
            }
        }

        let promotional = bought.isEmpty ? (false, EligibilityReason.neverSubscribed) : (true, .previouslySubscribed)

        var winBack: (Bool, EligibilityReason, [String]) = (false, .neverSubscribed, [])
        if let standing {
            winBack = (false, standing, [])
        } else if let latest = owned.max(by: { Self.isOlder($0, than: $1) }) {
            switch latest.eligibleWinBackOfferIds {
            case nil: winBack = (false, .winBackEligibilityUnknown, [])
            case let ids? where ids.isEmpty: winBack = (false, .noWinBackOffers, [])
            case let ids?: winBack = (true, .winBackOffersAvailable, ids)
            }
        }

        return GroupEligibility(
            subscriptionGroupIdentifier: group,
            introductoryOffer: intro.0, introductoryOfferReason: intro.1,
            promotionalOffer: promotional.0, promotionalOfferReason: promotional.1,
            winBackOffer: winBack.0, winBackOfferReason: winBack.1, eligibleWinBackOfferIds: winBack.2
        )
    }

    private static func isOlder(_ a: SubscriptionState, than b: SubscriptionState) -> Bool {
        if a.purchaseDate != b.purchaseDate { return a.purchaseDate < b.purchaseDate }
        return a.originalTransactionId < b.originalTransactionId
    }
}
