/// Why the customer is or is not eligible for an offer in a subscription group.
public enum EligibilityReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// No subscription in the group was ever bought (eligible for an introductory offer;
    /// not for promotional or win-back offers).
    case neverSubscribed
    /// A subscription in the group was bought before (current introductory rule: not
    /// eligible; promotional offers: eligible).
    case previouslySubscribed
    /// Older introductory rule: subscribed before, without an introductory offer, and not now.
    case introductoryOfferNotUsed
    /// Older introductory rule: a free trial or introductory offer was used in the group.
    case introductoryOfferUsed
    /// A subscription in the group is active.
    case currentlySubscribed
    /// A subscription in the group is in its billing grace period.
    case inGracePeriod
    /// A subscription in the group is in billing retry.
    case inBillingRetry
    /// Older introductory rule: a purchase in the group was refunded.
    case refunded
    /// Apple lists win-back offers for the lapsed subscription.
    case winBackOffersAvailable
    /// Apple says no win-back offer is available.
    case noWinBackOffers
    /// Apple's renewal data did not say (legacy sources, or renewal info older than win-back).
    case winBackEligibilityUnknown
}
