/// The detail of a V2 notification's event (`subtype`); many types carry none.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct Subtype: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// A first purchase in the subscription group (or of an offer).
    public static let initialBuy = Subtype(rawValue: "INITIAL_BUY")

    /// A returning subscriber bought again in the same group.
    public static let resubscribe = Subtype(rawValue: "RESUBSCRIBE")

    /// A downgrade, effective at the next renewal.
    public static let downgrade = Subtype(rawValue: "DOWNGRADE")

    /// An upgrade, effective immediately.
    public static let upgrade = Subtype(rawValue: "UPGRADE")

    /// Auto-renewal was turned on.
    public static let autoRenewEnabled = Subtype(rawValue: "AUTO_RENEW_ENABLED")

    /// Auto-renewal was turned off (by the customer or after a refund).
    public static let autoRenewDisabled = Subtype(rawValue: "AUTO_RENEW_DISABLED")

    /// Expired after the customer turned off auto-renewal.
    public static let voluntary = Subtype(rawValue: "VOLUNTARY")

    /// Expired because billing retry ended without success.
    public static let billingRetry = Subtype(rawValue: "BILLING_RETRY")

    /// Expired because the customer did not consent to a price increase.
    public static let priceIncrease = Subtype(rawValue: "PRICE_INCREASE")

    /// Renewal failed but the customer keeps service during the grace period.
    public static let gracePeriod = Subtype(rawValue: "GRACE_PERIOD")

    /// A price increase awaits the customer's response.
    public static let pending = Subtype(rawValue: "PENDING")

    /// The customer accepted a price increase, or none was needed.
    public static let accepted = Subtype(rawValue: "ACCEPTED")

    /// A subscription that failed to renew renewed successfully.
    public static let billingRecovery = Subtype(rawValue: "BILLING_RECOVERY")

    /// Expired because the product was not available for purchase at renewal.
    public static let productNotForSale = Subtype(rawValue: "PRODUCT_NOT_FOR_SALE")

    /// A renewal-date extension for all subscribers completed.
    public static let summary = Subtype(rawValue: "SUMMARY")

    /// A renewal-date extension failed for one subscription.
    public static let failure = Subtype(rawValue: "FAILURE")

    /// An external purchase token was not reported.
    public static let unreported = Subtype(rawValue: "UNREPORTED")

    public static let known: [Subtype] = [
        .initialBuy, .resubscribe, .downgrade, .upgrade, .autoRenewEnabled, .autoRenewDisabled, .voluntary,
        .billingRetry, .priceIncrease, .gracePeriod, .pending, .accepted, .billingRecovery,
        .productNotForSale, .summary, .failure, .unreported,
    ]
}
