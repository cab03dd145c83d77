import Foundation

/// The billing commitment of one period of a monthly plan with a 12-month commitment (a
/// one-year product billed `MONTHLY`): which monthly payment of how many it is, the whole
/// commitment's price and when the commitment ends (Apple's `TransactionCommitmentInfo`).
public struct Commitment: Sendable, Hashable, Codable {
    /// 1-based: the period's payment within the commitment.
    public var billingPeriodNumber: Int
    public var totalBillingPeriods: Int
    /// The price of the whole commitment, in the period's currency.
    public var price: Money?
    /// When the commitment ends (the last monthly period's expiry).
    public var expiresDate: Date?

    public init(billingPeriodNumber: Int, totalBillingPeriods: Int, price: Money? = nil, expiresDate: Date? = nil) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.price = price
        self.expiresDate = expiresDate
    }

    /// Whether a monthly payment is still owed after this period: the customer may not stop the
    /// subscription before the commitment's last period.
    public var owesMorePeriods: Bool { billingPeriodNumber < totalBillingPeriods }
}

/// What renews after the current commitment (Apple's `RenewalCommitmentInfo`, present only
/// while a subscription is in a commitment).
public struct CommitmentRenewal: Sendable, Hashable, Codable {
    /// Whether the subscription renews once the commitment ends (the customer's cancellation
    /// during a commitment turns this off; the monthly payments go on until its end).
    public var willAutoRenew: Bool?
    /// The product it renews into.
    public var autoRenewProductId: String?
    /// `MONTHLY` (another commitment) or `BILLED_UPFRONT`.
    public var billingPlanType: String?
    public var renewalDate: Date?
    public var price: Money?

    public init(
        willAutoRenew: Bool? = nil, autoRenewProductId: String? = nil, billingPlanType: String? = nil, renewalDate: Date? = nil,
        price: Money? = nil
    ) {
        self.willAutoRenew = willAutoRenew
        self.autoRenewProductId = autoRenewProductId
        self.billingPlanType = billingPlanType
        self.renewalDate = renewalDate
        self.price = price
    }
}
