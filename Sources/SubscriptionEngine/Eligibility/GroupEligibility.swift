/// The customer's eligibility for each kind of offer in one subscription group.
public struct GroupEligibility: Sendable, Hashable, Codable {
    /// The group.
    public var subscriptionGroupIdentifier: String
    /// Whether an introductory offer (including a free trial) may be offered.
    public var introductoryOffer: Bool
    /// Why, under the configured ``IntroductoryOfferRule``.
    public var introductoryOfferReason: EligibilityReason
    /// Whether a promotional offer may be offered: the customer has or had a subscription in
    /// the group.
    public var promotionalOffer: Bool
    /// Why.
    public var promotionalOfferReason: EligibilityReason
    /// Whether a win-back offer may be offered: Apple listed one for a lapsed (expired or
    /// revoked) subscription; never in grace period or billing retry.
    public var winBackOffer: Bool
    /// Why.
    public var winBackOfferReason: EligibilityReason
    /// The win-back offers Apple lists, best first (empty unless ``winBackOffer``).
    public var eligibleWinBackOfferIds: [String]

    public init(
        subscriptionGroupIdentifier: String, introductoryOffer: Bool, introductoryOfferReason: EligibilityReason,
        promotionalOffer: Bool, promotionalOfferReason: EligibilityReason, winBackOffer: Bool,
        winBackOfferReason: EligibilityReason, eligibleWinBackOfferIds: [String]
    ) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.introductoryOffer = introductoryOffer
        self.introductoryOfferReason = introductoryOfferReason
        self.promotionalOffer = promotionalOffer
        self.promotionalOfferReason = promotionalOfferReason
        self.winBackOffer = winBackOffer
        self.winBackOfferReason = winBackOfferReason
        self.eligibleWinBackOfferIds = eligibleWinBackOfferIds
    }
}
