import Foundation

/// The engine's settings: rules where Apple has published more than one, limits Apple
/// documents, and policies an app chooses.
public struct EngineConfiguration: Sendable, Hashable {
    /// Which introductory-offer eligibility rule to apply. Default: the current App Store rule.
    public var introductoryOfferRule: IntroductoryOfferRule
    /// How long after a period's end Apple keeps retrying a failed charge (Apple: up to 60
    /// days). After it, a subscription still marked "in billing retry" by stale renewal data
    /// counts as expired for a billing error.
    public var billingRetryLimit: TimeInterval
    /// Access kept while a renewal Apple has not confirmed yet is expected; `nil` for none.
    public var offlineAllowance: OfflineAllowance?
    /// How Apple's commission is computed.
    public var commission: CommissionPolicy
    /// When to next ask Apple about each subscription.
    public var nextLook: NextLookPolicy

    public init(
        introductoryOfferRule: IntroductoryOfferRule = .neverSubscribedInGroup,
        billingRetryLimit: TimeInterval = 60 * 86_400,
        offlineAllowance: OfflineAllowance? = nil,
        commission: CommissionPolicy = CommissionPolicy(),
        nextLook: NextLookPolicy = NextLookPolicy()
    ) {
        self.introductoryOfferRule = introductoryOfferRule
        self.billingRetryLimit = billingRetryLimit
        self.offlineAllowance = offlineAllowance
        self.commission = commission
        self.nextLook = nextLook
    }
}
