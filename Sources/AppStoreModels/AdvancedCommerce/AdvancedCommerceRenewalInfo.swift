/// Advanced Commerce details of a subscription's renewal (`advancedCommerceInfo` in signed renewal info).
public struct AdvancedCommerceRenewalInfo: Codable, Hashable, Sendable {
    /// A token to pass with the next modification request, so Apple can detect concurrent changes.
    public var consistencyToken: String?

    /// The display name and description of the subscription.
    public var descriptors: AdvancedCommerceDescriptors?

    /// The SKUs that renew.
    public var items: [AdvancedCommerceRenewalItem]?

    /// The billing period.
    public var period: AdvancedCommercePeriod?

    /// The developer's identifier of the request that last changed the subscription.
    public var requestReferenceId: String?

    /// The tax code of the subscription.
    public var taxCode: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        consistencyToken: String? = nil,
        descriptors: AdvancedCommerceDescriptors? = nil,
        items: [AdvancedCommerceRenewalItem]? = nil,
        period: AdvancedCommercePeriod? = nil,
        requestReferenceId: String? = nil,
        taxCode: String? = nil
    ) {
        self.consistencyToken = consistencyToken
        self.descriptors = descriptors
        self.items = items
        self.period = period
        self.requestReferenceId = requestReferenceId
        self.taxCode = taxCode
    }
}
