import Foundation

/// A change in a customer's purchases that an app wants to hear about, read off the engine's
/// state over time (``ChainTimeline``) rather than off the kind of message that carried the
/// facts: the same facts give the same transitions whether they came in notifications,
/// reconciliation or both, in any order, any number of times.
///
/// Each transition has an identity (``id``) built from Apple's identities of what changed — the
/// period's transaction id, the lapsed period, the toggle's ordinal within its period — never
/// from when or how it was learned, so a transition seen twice is one transition.
public struct Transition: Sendable, Hashable {
    /// A dotted name: `subscription.renewed`, `trial.started` …
    public var type: Kind
    /// The chain, or the purchase's own transaction id for one-time purchases.
    public var originalTransactionId: String
    /// What distinguishes this transition from others of its type on the chain.
    public var anchor: String
    /// When it happened (the segment's start: a period's purchase, an expiry, a fact's signing).
    public var occurredAt: Date
    /// The transaction whose period the transition is about.
    public var transactionId: String
    public var productId: String
    /// The chain's state after the transition (`nil` for one-time purchases and grants).
    public var state: SubscriptionState?
    /// The chain's state before, when there was one.
    public var previous: SubscriptionState?
    /// Anchors this transition had in earlier versions, so that a transition recorded under one of
    /// them is not announced again.
    public var formerAnchors: [String] = []

    /// Stable across sources and repeats: type, chain and anchor.
    public var id: String { "\(type.rawValue):\(originalTransactionId):\(anchor)" }

    /// The ids this transition had in earlier versions (``formerAnchors``).
    public var formerIds: [String] { formerAnchors.map { "\(type.rawValue):\(originalTransactionId):\($0)" } }

    public struct Kind: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        public static let subscriptionStarted = Kind(rawValue: "subscription.started")
        public static let trialStarted = Kind(rawValue: "trial.started")
        public static let trialConverted = Kind(rawValue: "trial.converted")
        public static let trialExpired = Kind(rawValue: "trial.expired")
        public static let renewed = Kind(rawValue: "subscription.renewed")
        public static let productChanged = Kind(rawValue: "subscription.product_changed")
        public static let autoRenewDisabled = Kind(rawValue: "subscription.auto_renew_disabled")
        public static let autoRenewEnabled = Kind(rawValue: "subscription.auto_renew_enabled")
        public static let billingIssue = Kind(rawValue: "subscription.billing_issue")
        public static let gracePeriodStarted = Kind(rawValue: "subscription.grace_period_started")
        public static let billingRecovered = Kind(rawValue: "subscription.billing_recovered")
        public static let expired = Kind(rawValue: "subscription.expired")
        public static let refunded = Kind(rawValue: "subscription.refunded")
        public static let revoked = Kind(rawValue: "subscription.revoked")
        public static let extended = Kind(rawValue: "subscription.extended")
        public static let priceIncrease = Kind(rawValue: "subscription.price_increase")
        public static let oneTimePurchase = Kind(rawValue: "purchase.one_time")
        public static let entitlementGranted = Kind(rawValue: "entitlement.granted")
        public static let entitlementRevoked = Kind(rawValue: "entitlement.revoked")

        /// Every kind the engine derives.
        public static let all: [Kind] = [
            .subscriptionStarted, .trialStarted, .trialConverted, .trialExpired, .renewed, .productChanged, .autoRenewDisabled,
            .autoRenewEnabled, .billingIssue, .gracePeriodStarted, .billingRecovered, .expired, .refunded, .revoked, .extended,
            .priceIncrease, .oneTimePurchase, .entitlementGranted, .entitlementRevoked,
        ]
    }
}

extension ChainTimeline {
    /// A refund is `subscription.refunded`; access taken back otherwise (family sharing
    /// stopped, the operator) is `subscription.revoked`.
    static func revocationKind(_ kind: RevocationKind?) -> Transition.Kind {
        switch kind {
        case .refund?, .proratedRefund?, nil: .refunded
        case .familyRevoke?, .manual?, .upgrade?: .revoked
        }
    }

    /// The chain's transitions that happened at or before `until`, oldest first.
    public func transitions(until: Date) -> [Transition] {
        var result: [Transition] = []
        var previous: SubscriptionState?
        var paidBefore = false
        for segment in segments where segment.from <= until {
            let state = segment.state
            func add(_ kind: Transition.Kind, _ anchor: String) {
                result.append(
                    Transition(
                        type: kind, originalTransactionId: originalTransactionId, anchor: anchor, occurredAt: segment.from,
                        transactionId: state.transactionId, productId: state.productId, state: state, previous: previous))
            }
            let isTrial = state.offer?.kind == .freeTrial
            let newPeriod = previous?.transactionId != state.transactionId
            if newPeriod, state.status != .revoked {
                if isTrial {
                    add(.trialStarted, state.transactionId)
                } else {
                    if !paidBefore {
                        add(.subscriptionStarted, state.transactionId)
                        if previous?.offer?.kind == .freeTrial { add(.trialConverted, state.transactionId) }
                    } else if let previous, previous.productId != state.productId {
                        add(.productChanged, state.transactionId)
                    } else if let previous,
                        [.billingRetry, .gracePeriod].contains(previous.status)
                            || previous.status == .expired
                                && previous.expirationReason == .billingError
                    {
                        add(.billingRecovered, state.transactionId)
                        add(.renewed, state.transactionId)
                    } else {
                        add(.renewed, state.transactionId)
                    }
                    paidBefore = true
                }
            } else if let previous, !newPeriod {
                if previous.status != state.status {
                    switch state.status {
                    case .gracePeriod:
                        add(.billingIssue, state.transactionId)
                        add(.gracePeriodStarted, state.transactionId)
                    case .billingRetry where previous.status != .gracePeriod:
                        add(.billingIssue, state.transactionId)
                    case .expired:
                        add(isTrial ? .trialExpired : .expired, state.transactionId)
                    case .revoked:
                        add(Self.revocationKind(state.revocation?.kind), state.transactionId)
                    case .active where [.billingRetry, .gracePeriod].contains(previous.status):
                        add(.billingRecovered, state.transactionId + ":same")
                    default:
                        break
                    }
                }
                if let before = previous.expiresDate, let after = state.expiresDate, after > before,
                    state.status == previous.status
                        || state.status == .active
                {
                    add(.extended, "\(state.transactionId):\(Int64((after.timeIntervalSince1970 * 1000).rounded()))")
                }
            }
            if newPeriod, state.status == .revoked, previous != nil {
                add(Self.revocationKind(state.revocation?.kind), state.transactionId)
            }
            previous = state
        }
        return result
    }
}

extension PurchaseHistory {
    /// The transitions of every purchase that is not part of an auto-renewable chain — one-time
    /// purchases, and the operator's grants and their revocations — at or before `until`.
    public func oneTimeTransitions(catalog: Catalog = .empty, until: Date) -> [Transition] {
        var result: [Transition] = []
        for purchase in effectivePurchases where RevenueLedger.type(of: purchase, catalog) != .autoRenewable {
            let isGrant = purchase.transactionId.hasPrefix("grant:")
            if purchase.purchaseDate <= until {
                result.append(
                    Transition(
                        type: isGrant ? .entitlementGranted : .oneTimePurchase, originalTransactionId: purchase.originalTransactionId,
                        anchor: purchase.transactionId, occurredAt: isGrant ? (purchase.signedDate ?? purchase.purchaseDate) : purchase.purchaseDate,
                        transactionId: purchase.transactionId, productId: purchase.productId))
            }
            if let revocation = purchase.revocation, revocation.date <= until {
                result.append(
                    Transition(
                        type: isGrant || revocation.kind == .manual ? .entitlementRevoked : ChainTimeline.revocationKind(revocation.kind),
                        originalTransactionId: purchase.originalTransactionId, anchor: purchase.transactionId, occurredAt: revocation.date,
                        transactionId: purchase.transactionId, productId: purchase.productId))
            }
        }
        return result.sorted { ($0.occurredAt, $0.id) < ($1.occurredAt, $1.id) }
    }

    /// A renewal that Apple charged only after saying it was retrying the payment is also a
    /// recovery, even when the new period starts where the lapsed one ended (a recovery in the
    /// grace period keeps the renewal date, so the timeline shows no gap).
    func recoveries(in transitions: [Transition]) -> [Transition] {
        var result: [Transition] = []
        let ids = Set(transitions.map(\.id))
        for transition in transitions {
            if transition.type == .renewed, let lapse = transition.previous?.expiresDate {
                // Apple said it was retrying after the lapse and before the recovered period ended.
                let end = transition.state?.expiresDate ?? .distantFuture
                let retried = (renewalTimeline[transition.originalTransactionId] ?? []).contains { fact in
                    guard fact.isInBillingRetry == true, let signed = fact.signedDate else { return false }
                    return signed >= lapse.addingTimeInterval(-3_600) && signed < end
                }
                var recovered = transition
                recovered.type = .billingRecovered
                if retried, !ids.contains(recovered.id) { result.append(recovered) }
            }
            result.append(transition)
        }
        return result
    }

    /// Auto-renew switched off or on, and price-increase consent given or pending, as Apple's
    /// renewal facts said in turn (facts that repeat a value add nothing).
    ///
    /// A switch of auto-renew is anchored to its ordinal among the switches since the chain began
    /// (or since a resubscription after a lapse started it afresh), not to the period it was seen
    /// in: a switch whose own notification was lost is first seen in a later fact (the renewal
    /// after it says auto-renew is on), and when the lost notification is learned later (the
    /// notification history) it is the same switch, dated earlier, in the period before. Consent
    /// to a price increase is anchored to the period then current, the value and its ordinal.
    func renewalTransitions(of timeline: ChainTimeline, until: Date) -> [Transition] {
        let chain = timeline.originalTransactionId
        let facts = ((renewalTimeline[chain] ?? []) + (renewals[chain].map { [$0] } ?? []))
            .filter { ($0.signedDate ?? .distantFuture) <= until }
            .sorted { ($0.signedDate ?? .distantPast) < ($1.signedDate ?? .distantPast) }
        var result: [Transition] = []
        var willRenew: Bool?
        var willRenewPeriod: String?
        var switches = (since: chain, count: 0)
        var consent: PriceIncreaseConsent?
        var ordinals: [String: Int] = [:]
        for fact in facts {
            guard let signed = fact.signedDate, let state = timeline.state(at: signed) else { continue }
            func add(_ kind: Transition.Kind, _ value: String, anchor: String? = nil) {
                let key = "\(state.transactionId):\(value)"
                ordinals[key, default: 0] += 1
                let periodAnchor = "\(key):\(ordinals[key]!)"
                result.append(
                    Transition(
                        type: kind, originalTransactionId: chain, anchor: anchor ?? periodAnchor, occurredAt: signed,
                        transactionId: state.transactionId, productId: state.productId, state: state, previous: nil,
                        formerAnchors: anchor == nil ? [] : [periodAnchor]))
            }
            if let value = fact.willAutoRenew {
                // A resubscription after a lapse starts afresh: turning renewal on by buying
                // again is not a toggle.
                if willRenewPeriod != state.transactionId,
                    timeline.state(at: state.purchaseDate.addingTimeInterval(-0.001))?.status == .expired
                {
                    willRenew = nil
                    switches = (since: state.transactionId, count: 0)
                }
                if let before = willRenew, before != value, state.status != .expired, state.status != .revoked {
                    switches.count += 1
                    add(
                        value ? .autoRenewEnabled : .autoRenewDisabled, "\(value)",
                        anchor: "switch:\(switches.since):\(switches.count):\(value)")
                }
                willRenew = value
                willRenewPeriod = state.transactionId
            }
            if let value = fact.priceIncreaseConsent, value != consent {
                add(.priceIncrease, value.rawValue)
                consent = value
            }
        }
        return result
    }

    /// Every transition of the history at or before `until`: each chain's, then the one-time ones, by time.
    public func transitions(catalog: Catalog = .empty, configuration: EngineConfiguration = EngineConfiguration(), until: Date) -> [Transition] {
        let chains = chainTimelines(catalog: catalog, configuration: configuration).values.flatMap {
            recoveries(in: $0.transitions(until: until)) + renewalTransitions(of: $0, until: until)
        }
        return (chains + oneTimeTransitions(catalog: catalog, until: until)).sorted { ($0.occurredAt, $0.id) < ($1.occurredAt, $1.id) }
    }
}
