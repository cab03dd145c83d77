import Foundation

/// How the simulated customers behave: each knob is a probability (0…1) unless it says otherwise.
///
/// The defaults give a plausible subscription app: most buy a monthly plan, many through a free
/// trial; some churn, some fail billing and a part of those recover inside the grace period
/// (Apple has reported up to 16%), a few refund, upgrade, downgrade or crossgrade, share with
/// family, meet a price increase, redeem an offer code or come back through a win-back offer;
/// and some buy consumables, non-consumables and non-renewing passes.
public struct PopulationBehaviour: Sendable, Hashable, Codable {
    /// Share of customers who subscribe (the rest buy only one-time products).
    public var subscribeRate: Double = 0.85
    /// Share of new subscribers to a product with a free trial who start with it.
    public var trialRate: Double = 0.5
    /// Share of trials that convert to a paid period.
    public var trialConversion: Double = 0.6
    /// Per paid period, the chance a subscriber turns auto-renew off.
    public var churnRate: Double = 0.08
    /// Share of those who turn it off who turn it back on before the period ends.
    public var reenableRate: Double = 0.15
    /// Per renewal, the chance the charge fails.
    public var billingFailureRate: Double = 0.06
    /// Share of billing failures recovered inside the grace period.
    public var graceRecoveryRate: Double = 0.16
    /// Share of the rest recovered later in billing retry (before Apple gives up after 60 days).
    public var retryRecoveryRate: Double = 0.3
    /// Grace period in days (0: the app has no Billing Grace Period).
    public var gracePeriodDays: Int = 16
    /// Per paid period, the chance of a refund.
    public var refundRate: Double = 0.01
    /// Per paid period, the chance of an upgrade (to a higher level, immediate).
    public var upgradeRate: Double = 0.02
    /// Per paid period, the chance of a downgrade (to a lower level, at the next renewal).
    public var downgradeRate: Double = 0.01
    /// Per paid period, the chance of a crossgrade (same level, other duration, at the next renewal).
    public var crossgradeRate: Double = 0.01
    /// Share of subscriptions shared with one family member.
    public var familySharingRate: Double = 0.05
    /// Per monthly period, the chance Apple announces a price increase to the subscriber.
    public var priceIncreaseRate: Double = 0.01
    /// Share of customers who consent to a price increase.
    public var priceIncreaseConsentRate: Double = 0.7
    /// Share of new subscribers who redeem an offer code instead of a trial.
    public var offerCodeRate: Double = 0.05
    /// Share of voluntarily lapsed subscribers who come back through a win-back offer.
    public var winBackRate: Double = 0.1
    /// Per customer, the chance of buying a consumable (each month).
    public var consumableRate: Double = 0.1
    /// Per customer, the chance of buying the non-consumable.
    public var nonConsumableRate: Double = 0.1
    /// Per customer, the chance of buying a non-renewing pass.
    public var nonRenewingRate: Double = 0.05
    /// Share of consumable purchases the customer asks to refund (Apple then asks the app).
    public var consumableRefundRequestRate: Double = 0.05

    /// On the cancellation sheet (``PopulationConfiguration/asksRetention``): the chance a
    /// retention message changes the customer's mind, that they take the plan proposed instead,
    /// and that they redeem the promotional offer shown.
    public var retentionMessageSaveRate: Double = 0.15
    public var retentionSwitchRate: Double = 0.4
    public var retentionOfferRedemptionRate: Double = 0.5
    /// Of the customers who subscribe to a one-year product with a monthly plan with a 12-month
    /// commitment, the share who take that plan (drawn apart from the other dice).
    public var commitmentPlanRate: Double = 0

    public init() {}

    /// Reads a partial JSON object: absent knobs keep their defaults.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func read(_ key: CodingKeys, _ value: inout Double) throws {
            if let decoded = try container.decodeIfPresent(Double.self, forKey: key) {
                guard (0...1).contains(decoded) else {
                    throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: "\(key.stringValue) must be between 0 and 1")
                }
                value = decoded
            }
        }
        try read(.subscribeRate, &subscribeRate)
        try read(.trialRate, &trialRate)
        try read(.trialConversion, &trialConversion)
        try read(.churnRate, &churnRate)
        try read(.reenableRate, &reenableRate)
        try read(.billingFailureRate, &billingFailureRate)
        try read(.graceRecoveryRate, &graceRecoveryRate)
        try read(.retryRecoveryRate, &retryRecoveryRate)
        try read(.refundRate, &refundRate)
        try read(.upgradeRate, &upgradeRate)
        try read(.downgradeRate, &downgradeRate)
        try read(.crossgradeRate, &crossgradeRate)
        try read(.familySharingRate, &familySharingRate)
        try read(.priceIncreaseRate, &priceIncreaseRate)
        try read(.priceIncreaseConsentRate, &priceIncreaseConsentRate)
        try read(.offerCodeRate, &offerCodeRate)
        try read(.winBackRate, &winBackRate)
        try read(.consumableRate, &consumableRate)
        try read(.nonConsumableRate, &nonConsumableRate)
        try read(.nonRenewingRate, &nonRenewingRate)
        try read(.consumableRefundRequestRate, &consumableRefundRequestRate)
        try read(.retentionMessageSaveRate, &retentionMessageSaveRate)
        try read(.retentionSwitchRate, &retentionSwitchRate)
        try read(.retentionOfferRedemptionRate, &retentionOfferRedemptionRate)
        try read(.commitmentPlanRate, &commitmentPlanRate)
        if let days = try container.decodeIfPresent(Int.self, forKey: .gracePeriodDays) {
            guard [0, 3, 16, 28].contains(days) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .gracePeriodDays, in: container, debugDescription: "gracePeriodDays must be 0, 3, 16 or 28 (Apple's choices)")
            }
            gracePeriodDays = days
        }
    }
}
