import Foundation

/// How a subscription with a billing commitment renews when its current commitment ends (API 1.21).
public struct RenewalCommitmentInfo: Codable, Hashable, Sendable {
    /// The product the commitment renews to.
    public var commitmentAutoRenewProductId: String?

    /// Whether the commitment renews automatically.
    public var commitmentAutoRenewStatus: AutoRenewStatus?

    /// How the renewed commitment will be billed.
    public var commitmentRenewalBillingPlanType: RenewalBillingPlanType?

    /// When the commitment renews.
    @AppStoreDate public var commitmentRenewalDate: Date?

    /// The price of the renewed commitment, in milliunits.
    public var commitmentRenewalPrice: Int64?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        commitmentAutoRenewProductId: String? = nil,
        commitmentAutoRenewStatus: AutoRenewStatus? = nil,
        commitmentRenewalBillingPlanType: RenewalBillingPlanType? = nil,
        commitmentRenewalDate: Date? = nil,
        commitmentRenewalPrice: Int64? = nil
    ) {
        self.commitmentAutoRenewProductId = commitmentAutoRenewProductId
        self.commitmentAutoRenewStatus = commitmentAutoRenewStatus
        self.commitmentRenewalBillingPlanType = commitmentRenewalBillingPlanType
        self.commitmentRenewalDate = commitmentRenewalDate
        self.commitmentRenewalPrice = commitmentRenewalPrice
    }
}
