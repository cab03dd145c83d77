import Foundation
import SubscriptionEngine
import Testing

/// A named situation, its history, an instant, and what Apple's semantics say about it.
struct Scenario: Sendable, CustomTestStringConvertible {
    var name: String
    var history: ScenarioHistory
    /// Days after ``ScenarioHistory/base``.
    var at: Double
    var rule: IntroductoryOfferRule = .neverSubscribedInGroup
    /// Expected status per original transaction id; chains not listed must be absent.
    var statuses: [String: SubscriptionStatus]
    /// Expected introductory-offer eligibility per group (every catalog group must be listed).
    var intro: [String: Bool]
    /// Expected promotional-offer eligibility per group (groups not listed: not checked).
    var promo: [String: Bool] = [:]
    /// Expected entitlement identifiers.
    var entitlements: Set<String>
    /// Further expectations.
    var checks: [Check] = []
    /// Whether the legacy form can say everything this scenario needs.
    var legacyExpressible = true

    var testDescription: String { name }

    enum Check: Sendable {
        case product(String, String)
        case expirationReason(String, ExpirationReason?)
        case nextProduct(String, String?)
        case offer(String, OfferKind?, String?)
        case ownership(String, Ownership)
        case revocation(String, RevocationKind?)
        case introReason(String, EligibilityReason)
        case accessEnds(String, Double)
        case priceIncrease(String, PriceIncreaseConsent?)
        case nextLook(String, NextLook.Reason)
        case consumables(Int)
        case entitlementEnds(String, Double?)
    }
}
