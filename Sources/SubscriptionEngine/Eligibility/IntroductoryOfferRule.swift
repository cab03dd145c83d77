/// Which of Apple's two published rules decides introductory-offer eligibility.
///
/// Introductory offers (free trials, pay-as-you-go, pay-up-front) are once per subscription
/// group, but Apple has described "once" in two ways:
///
/// - ``neverSubscribedInGroup`` — the current rule on Apple's App Store pages and in
///   StoreKit 2's `isEligibleForIntroOffer`: a customer is eligible only if they have never
///   subscribed to any product of the group, with or without an offer. A refunded
///   subscription still counts as having subscribed.
/// - ``unusedIntroductoryOfferAndNotSubscribed`` — the older StoreKit documentation's flow
///   chart (seed 003): eligible if no transaction in the group used an introductory offer
///   or a free trial **and** the customer is not subscribed now. Following seed 003's
///   caveats, a refund in the group makes the customer ineligible, and so does a subscription
///   in its billing grace period (the customer still has access) or in billing retry.
///
/// Under both rules only what the customer bought counts: a subscription a family member
/// shares with them neither uses up nor blocks their own introductory offer.
public enum IntroductoryOfferRule: String, Sendable, Hashable, Codable, CaseIterable {
    /// Eligible only if the customer never subscribed in the group (default, current).
    case neverSubscribedInGroup
    /// Eligible if no introductory offer was used in the group and nothing is subscribed now (older).
    case unusedIntroductoryOfferAndNotSubscribed
}
