import Foundation

/// The kind of offer a subscription period was bought with.
///
/// Apple reports offers differently in each source: legacy receipts have `is_trial_period`,
/// `is_in_intro_offer_period`, `promotional_offer_id` and `offer_code_ref_name`; StoreKit 2 has
/// `offerType` 1–4 with `offerDiscountType`. Both normalize to this set. A free trial is an
/// introductory offer too (``isIntroductory``), kept apart because apps and reports treat it apart.
public enum OfferKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// An introductory offer at no charge.
    case freeTrial
    /// A paid introductory offer (pay as you go or pay up front).
    case introductory
    /// A promotional offer for current or lapsed subscribers, signed by the developer.
    case promotional
    /// An offer code redeemed by the customer.
    case offerCode
    /// A win-back offer for lapsed subscribers (iOS 18 and later).
    case winBack
    /// A retention offer redeemed on Apple's cancellation sheet (`offerType` 5), offered through
    /// the Retention Messaging API.
    case retention
    /// An offer type Apple added after this engine was written.
    case unknown

    /// True for the offers that use up introductory eligibility in a subscription group.
    public var isIntroductory: Bool { self == .freeTrial || self == .introductory }
}
