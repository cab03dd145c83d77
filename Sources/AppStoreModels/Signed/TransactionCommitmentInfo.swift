import Foundation

/// The billing commitment of a transaction for a subscription billed monthly over a
/// 12-month commitment (API 1.21).
public struct TransactionCommitmentInfo: Codable, Hashable, Sendable {
    /// Which billing period of the commitment this transaction pays for (1-based).
    public var billingPeriodNumber: Int32?

    /// When the commitment ends.
    @AppStoreDate public var commitmentExpiresDate: Date?

    /// The total price of the commitment, in milliunits.
    public var commitmentPrice: Int64?

    /// The number of billing periods in the commitment.
    public var totalBillingPeriods: Int32?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        billingPeriodNumber: Int32? = nil,
        commitmentExpiresDate: Date? = nil,
        commitmentPrice: Int64? = nil,
        totalBillingPeriods: Int32? = nil
    ) {
        self.billingPeriodNumber = billingPeriodNumber
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
        self.totalBillingPeriods = totalBillingPeriods
    }
}
