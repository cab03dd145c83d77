import Foundation
import SubscriptionEngine

private typealias H = ScenarioHistory
private let second = 1.0 / 86_400

private func trialThenRenewals(reversed: Bool = false, renewal: H.Renewal = .init(original: "t1", product: "basic.monthly")) -> H {
    var first = H.sub("t1", "t1", "basic.monthly", 0, 7)
    first.offer = .freeTrial
    return H(
        periods: [first, H.sub("t2", "t1", "basic.monthly", 7, 37), H.sub("t3", "t1", "basic.monthly", 37, 67)], renewals: [renewal],
        reversed: reversed)
}

private func oneMonth(_ configure: (inout H.Period) -> Void = { _ in }, renewal: H.Renewal? = .init(original: "t1", product: "basic.monthly")) -> H {
    var period = H.sub("t1", "t1", "basic.monthly", 0, 30)
    configure(&period)
    return H(periods: [period], renewals: renewal.map { [$0] } ?? [])
}

private func upgrade() -> H {
    var upgraded = H.sub("t2", "t1", "basic.monthly", 30, 60)
    upgraded.upgraded = true
    upgraded.revokedAt = 40
    return H(
        periods: [H.sub("t1", "t1", "basic.monthly", 0, 30), upgraded, H.sub("t3", "t1", "pro.monthly", 40, 70)],
        renewals: [.init(original: "t1", product: "pro.monthly")]
    )
}

/// The demo check's chain 2000000000000624: a yearly period, then (while it still ran) a move
/// to a monthly product in the same chain, renewing until it expired; the yearly transaction
/// never came again with `isUpgraded` (its notification was lost, the statuses endpoint shows
/// only the latest transaction).
private func upgradeWithoutFlag() -> H {
    H(
        periods: [H.sub("y1", "y1", "pro.yearly", 0, 365), H.sub("m1", "y1", "pro.monthly", 39, 69), H.sub("m2", "y1", "pro.monthly", 69, 99)],
        renewals: [.init(original: "y1", product: "pro.monthly", willRenew: false, intent: 1)]
    )
}

private func resubscription() -> H {
    H(
        periods: [H.sub("a1", "a1", "basic.monthly", 0, 30), H.sub("b1", "b1", "basic.monthly", 100, 130)],
        renewals: [.init(original: "a1", product: "basic.monthly", willRenew: false, intent: 1), .init(original: "b1", product: "basic.monthly")]
    )
}

private func product(_ tx: String, _ id: String, _ type: ProductKind, _ start: Double, revokedAt: Double? = nil) -> H.Period {
    H.Period(tx: tx, original: tx, product: id, group: nil, type: type, start: start, revokedAt: revokedAt)
}

private let fresh = ["g": true, "h": true, "z": true]
private let subscribedG = ["g": false, "h": true, "z": true]

extension Scenario {
    /// Every rule of the engine, as named situations.
    static let all: [Scenario] = [
        Scenario(
            name: "nothing at all", history: H(), at: 10, statuses: [:], intro: fresh, promo: ["g": false], entitlements: [],
            checks: [.introReason("g", .neverSubscribed)]),
        Scenario(
            name: "free trial is active",
            history: oneMonth({
                $0.end = 7
                $0.offer = .freeTrial
            }), at: 3,
            statuses: ["t1": .active], intro: subscribedG, promo: ["g": true], entitlements: ["basic"],
            checks: [.offer("t1", .freeTrial, nil), .introReason("g", .previouslySubscribed), .nextLook("t1", .periodEnd)]),
        Scenario(
            name: "trial converted and renewed", history: trialThenRenewals(), at: 50, statuses: ["t1": .active],
            intro: subscribedG, entitlements: ["basic"], checks: [.offer("t1", nil, nil), .accessEnds("t1", 67)]),
        Scenario(
            name: "one second before expiry", history: trialThenRenewals(), at: 67 - second, statuses: ["t1": .active],
            intro: subscribedG, entitlements: ["basic"], checks: [.nextLook("t1", .periodEnd)]),
        Scenario(
            name: "one second after expiry, renewal not seen yet", history: trialThenRenewals(), at: 67 + second,
            statuses: ["t1": .expired], intro: subscribedG, entitlements: [],
            checks: [.expirationReason("t1", nil), .nextLook("t1", .unconfirmedRenewal)]),
        Scenario(
            name: "one second after expiry, cancelled",
            history: trialThenRenewals(renewal: .init(original: "t1", product: "basic.monthly", willRenew: false, intent: 1)),
            at: 67 + second, statuses: ["t1": .expired], intro: subscribedG, entitlements: [],
            checks: [.expirationReason("t1", .voluntary), .nextLook("t1", .never)]),
        Scenario(
            name: "grace period keeps access",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", intent: 2, retry: true, graceEnd: 46)),
            at: 35, statuses: ["t1": .gracePeriod], intro: subscribedG, entitlements: ["basic"],
            checks: [.accessEnds("t1", 46), .nextLook("t1", .gracePeriod)]),
        Scenario(
            name: "one second after grace ends: billing retry",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", intent: 2, retry: true, graceEnd: 46)),
            at: 46 + second, statuses: ["t1": .billingRetry], intro: subscribedG, entitlements: [],
            checks: [.expirationReason("t1", .billingError)]),
        Scenario(
            name: "billing retry gives no access",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", intent: 2, retry: true)),
            at: 40, statuses: ["t1": .billingRetry], intro: subscribedG, entitlements: [],
            checks: [.nextLook("t1", .billingRetry)]),
        Scenario(
            name: "billing recovered by a renewal",
            history: H(
                periods: [H.sub("t1", "t1", "basic.monthly", 0, 30), H.sub("t2", "t1", "basic.monthly", 35, 65)],
                renewals: [.init(original: "t1", product: "basic.monthly", retry: false)]),
            at: 40, statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic"]),
        Scenario(
            name: "billing retry ends after 60 days", history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", retry: true)),
            at: 91, statuses: ["t1": .expired], intro: subscribedG, entitlements: [],
            checks: [.expirationReason("t1", .billingError), .nextLook("t1", .never)]),
        Scenario(
            name: "refund of the current period revokes", history: oneMonth({ $0.revokedAt = 10 }), at: 15,
            statuses: ["t1": .revoked], intro: subscribedG, promo: ["g": true], entitlements: [],
            checks: [.revocation("t1", .refund), .nextLook("t1", .never), .accessEnds("t1", 10)]),
        Scenario(
            name: "one second before the refund", history: oneMonth({ $0.revokedAt = 10 }), at: 10 - second,
            statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic"], checks: [.revocation("t1", nil)]),
        Scenario(
            name: "refund of an earlier period keeps the current one",
            history: H(
                periods: [
                    {
                        var p = H.sub("t1", "t1", "basic.monthly", 0, 30)
                        p.revokedAt = 45
                        return p
                    }(),
                    H.sub("t2", "t1", "basic.monthly", 30, 60),
                ],
                renewals: [.init(original: "t1", product: "basic.monthly")]),
            at: 50, statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic"], checks: [.revocation("t1", nil)]),
        Scenario(
            name: "prorated refund revokes",
            history: oneMonth({
                $0.revokedAt = 10
                $0.revocation = .proratedRefund
            }), at: 15,
            statuses: ["t1": .revoked], intro: subscribedG, entitlements: []),
        Scenario(
            name: "upgrade is immediate", history: upgrade(), at: 45, statuses: ["t1": .active], intro: subscribedG,
            entitlements: ["basic", "pro"], checks: [.product("t1", "pro.monthly"), .revocation("t1", nil)]),
        Scenario(
            name: "one second before the upgrade", history: upgrade(), at: 40 - second, statuses: ["t1": .active],
            intro: subscribedG, entitlements: ["basic"], checks: [.product("t1", "basic.monthly")]),
        Scenario(
            name: "a newer period that starts inside an older one ends it, flag or not", history: upgradeWithoutFlag(), at: 120,
            statuses: ["y1": .expired], intro: subscribedG, entitlements: [],
            checks: [.product("y1", "pro.monthly"), .expirationReason("y1", .voluntary)]),
        Scenario(
            name: "the older period gives access until the newer one starts", history: upgradeWithoutFlag(), at: 39 - second,
            statuses: ["y1": .active], intro: subscribedG, entitlements: ["basic", "pro"], checks: [.product("y1", "pro.yearly")]),
        Scenario(
            name: "after the move without a flag, the newer product is the one in force", history: upgradeWithoutFlag(), at: 70,
            statuses: ["y1": .active], intro: subscribedG, entitlements: ["basic", "pro"],
            checks: [.product("y1", "pro.monthly"), .accessEnds("y1", 99)]),
        Scenario(
            name: "an upgrade is no revocation", history: upgrade(), at: 71, statuses: ["t1": .expired], intro: subscribedG,
            entitlements: [], checks: [.product("t1", "pro.monthly"), .revocation("t1", nil)]),
        Scenario(
            name: "downgrade waits for the renewal",
            history: H(
                periods: [H.sub("t1", "t1", "pro.monthly", 0, 30)], renewals: [.init(original: "t1", product: "pro.monthly", next: "basic.monthly")]),
            at: 10, statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic", "pro"],
            checks: [.nextProduct("t1", "basic.monthly"), .product("t1", "pro.monthly")]),
        Scenario(
            name: "downgrade takes effect at the renewal",
            history: H(
                periods: [H.sub("t1", "t1", "pro.monthly", 0, 30), H.sub("t2", "t1", "basic.monthly", 30, 60)],
                renewals: [.init(original: "t1", product: "basic.monthly")]),
            at: 35, statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic"],
            checks: [.nextProduct("t1", nil), .product("t1", "basic.monthly")]),
        Scenario(
            name: "crossgrade to yearly at the renewal",
            history: H(
                periods: [H.sub("t1", "t1", "pro.monthly", 0, 30), H.sub("t2", "t1", "pro.yearly", 30, 396)],
                renewals: [.init(original: "t1", product: "pro.yearly")]),
            at: 200, statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic", "pro"],
            checks: [.product("t1", "pro.yearly"), .accessEnds("t1", 396)]),
        Scenario(
            name: "family sharing gives access", history: oneMonth({ $0.family = true }), at: 10, statuses: ["t1": .active],
            intro: fresh, promo: ["g": false], entitlements: ["basic"], checks: [.ownership("t1", .familyShared)]),
        Scenario(
            name: "family revocation",
            history: oneMonth({
                $0.family = true
                $0.revokedAt = 10
                $0.revocation = .familyRevoke
            }), at: 15,
            statuses: ["t1": .revoked], intro: fresh, entitlements: [], checks: [.revocation("t1", .familyRevoke)]),
        Scenario(
            name: "re-subscription on a new chain", history: resubscription(), at: 110, statuses: ["a1": .expired, "b1": .active],
            intro: subscribedG, promo: ["g": true], entitlements: ["basic"], checks: [.expirationReason("a1", .voluntary)]),
        Scenario(
            name: "between the two chains", history: resubscription(), at: 50, statuses: ["a1": .expired],
            intro: subscribedG, promo: ["g": true], entitlements: []),
        Scenario(
            name: "several groups",
            history: H(
                periods: [
                    H.sub("t1", "t1", "basic.monthly", 0, 30), H.sub("t2", "t1", "basic.monthly", 30, 60),
                    H.sub("n1", "n1", "news.monthly", 0, 30, group: "h"),
                ],
                renewals: [
                    .init(original: "t1", product: "basic.monthly"),
                    .init(original: "n1", product: "news.monthly", willRenew: false, intent: 1),
                ]),
            at: 40, statuses: ["t1": .active, "n1": .expired], intro: ["g": false, "h": false, "z": true],
            promo: ["g": true, "h": true, "z": false], entitlements: ["basic"]),
        Scenario(
            name: "older rule: introductory offer used",
            history: oneMonth({ $0.offer = .introductory }, renewal: .init(original: "t1", product: "basic.monthly", willRenew: false, intent: 1)),
            at: 40, rule: .unusedIntroductoryOfferAndNotSubscribed, statuses: ["t1": .expired], intro: subscribedG, entitlements: [],
            checks: [.introReason("g", .introductoryOfferUsed), .offer("t1", .introductory, nil)]),
        Scenario(
            name: "older rule: lapsed without an offer is eligible",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", willRenew: false, intent: 1)),
            at: 40, rule: .unusedIntroductoryOfferAndNotSubscribed, statuses: ["t1": .expired], intro: fresh, entitlements: [],
            checks: [.introReason("g", .introductoryOfferNotUsed)]),
        Scenario(
            name: "current rule: lapsed without an offer is not eligible",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", willRenew: false, intent: 1)),
            at: 40, statuses: ["t1": .expired], intro: subscribedG, entitlements: [],
            checks: [.introReason("g", .previouslySubscribed)]),
        Scenario(
            name: "older rule: active subscription is not eligible", history: oneMonth(), at: 10,
            rule: .unusedIntroductoryOfferAndNotSubscribed, statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic"],
            checks: [.introReason("g", .currentlySubscribed)]),
        Scenario(
            name: "older rule: grace period is not eligible",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", intent: 2, retry: true, graceEnd: 46)),
            at: 35, rule: .unusedIntroductoryOfferAndNotSubscribed, statuses: ["t1": .gracePeriod], intro: subscribedG,
            entitlements: ["basic"], checks: [.introReason("g", .inGracePeriod)]),
        Scenario(
            name: "older rule: a refund is not eligible", history: oneMonth({ $0.revokedAt = 10 }), at: 40,
            rule: .unusedIntroductoryOfferAndNotSubscribed, statuses: ["t1": .revoked], intro: subscribedG, entitlements: [],
            checks: [.introReason("g", .refunded)]),
        Scenario(
            name: "price increase awaiting consent",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", priceConsent: false)),
            at: 10, statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic"], checks: [.priceIncrease("t1", .pending)]),
        Scenario(
            name: "expired after refusing a price increase",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", willRenew: false, intent: 3)),
            at: 40, statuses: ["t1": .expired], intro: subscribedG, entitlements: [],
            checks: [.expirationReason("t1", .priceIncrease), .nextLook("t1", .never)]),
        Scenario(
            name: "expired because the product was unavailable",
            history: oneMonth(renewal: .init(original: "t1", product: "basic.monthly", willRenew: false, intent: 4)),
            at: 40, statuses: ["t1": .expired], intro: subscribedG, entitlements: [],
            checks: [.expirationReason("t1", .productUnavailable)]),
        Scenario(
            name: "promotional offer in effect",
            history: H(
                periods: [
                    H.sub("t1", "t1", "basic.monthly", 0, 30),
                    {
                        var p = H.sub("t2", "t1", "basic.monthly", 30, 60)
                        p.offer = .promotional
                        p.offerId = "promo1"
                        return p
                    }(),
                ],
                renewals: [.init(original: "t1", product: "basic.monthly")]),
            at: 40, statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic"], checks: [.offer("t1", .promotional, "promo1")]),
        Scenario(
            name: "offer code in effect",
            history: oneMonth({
                $0.offer = .offerCode
                $0.offerId = "CODE1"
            }), at: 10,
            statuses: ["t1": .active], intro: subscribedG, entitlements: ["basic"], checks: [.offer("t1", .offerCode, "CODE1")]),
        Scenario(
            name: "unsorted input", history: trialThenRenewals(reversed: true), at: 50, statuses: ["t1": .active],
            intro: subscribedG, entitlements: ["basic"], checks: [.accessEnds("t1", 67)]),
        Scenario(
            name: "non-renewing passes stack",
            history: H(periods: [product("p1", "pass.month", .nonRenewing, 0), product("p2", "pass.month", .nonRenewing, 10)]),
            at: 45, statuses: [:], intro: fresh, entitlements: ["pass"], checks: [.entitlementEnds("pass", 60)]),
        Scenario(
            name: "non-renewing passes run out",
            history: H(periods: [product("p1", "pass.month", .nonRenewing, 0), product("p2", "pass.month", .nonRenewing, 10)]),
            at: 60 + second, statuses: [:], intro: fresh, entitlements: []),
        Scenario(
            name: "non-consumable is owned forever", history: H(periods: [product("l1", "lifetime", .nonConsumable, 0)]), at: 2_000,
            statuses: [:], intro: fresh, entitlements: ["lifetime"], checks: [.entitlementEnds("lifetime", nil)]),
        Scenario(
            name: "refunded non-consumable", history: H(periods: [product("l1", "lifetime", .nonConsumable, 0, revokedAt: 5)]), at: 10,
            statuses: [:], intro: fresh, entitlements: []),
        Scenario(
            name: "consumables are a purchase log",
            history: H(periods: [product("c1", "coins", .consumable, 0), product("c2", "coins", .consumable, 1)]), at: 5,
            statuses: [:], intro: fresh, entitlements: [], checks: [.consumables(2)]),
    ]
}
