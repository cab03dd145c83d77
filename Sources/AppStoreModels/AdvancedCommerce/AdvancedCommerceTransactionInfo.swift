/// Advanced Commerce details of a transaction (`advancedCommerceInfo` in a signed transaction).
public struct AdvancedCommerceTransactionInfo: Codable, Hashable, Sendable {
    /// The display name and description of the purchase.
    public var descriptors: AdvancedCommerceDescriptors?

    /// The estimated tax, in milliunits.
    public var estimatedTax: Int64?

    /// The SKUs the transaction covers.
    public var items: [AdvancedCommerceTransactionItem]?

    /// The subscription's billing period.
    public var period: AdvancedCommercePeriod?

    /// The developer's identifier of the request that created the transaction.
    public var requestReferenceId: String?

    /// The tax code of the purchase.
    public var taxCode: String?

    /// The price before tax, in milliunits.
    public var taxExclusivePrice: Int64?

    /// The tax rate as a decimal string (e.g. "0.15").
    public var taxRate: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        descriptors: AdvancedCommerceDescriptors? = nil,
        estimatedTax: Int64? = nil,
        items: [AdvancedCommerceTransactionItem]? = nil,
        period: AdvancedCommercePeriod? = nil,
        requestReferenceId: String? = nil,
        taxCode: String? = nil,
        taxExclusivePrice: Int64? = nil,
        taxRate: String? = nil
    ) {
        self.descriptors = descriptors
        self.estimatedTax = estimatedTax
        self.items = items
        self.period = period
        self.requestReferenceId = requestReferenceId
        self.taxCode = taxCode
        self.taxExclusivePrice = taxExclusivePrice
        self.taxRate = taxRate
    }
}
