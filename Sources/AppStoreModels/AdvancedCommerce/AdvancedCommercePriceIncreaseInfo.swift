/// A price increase for an Advanced Commerce subscription SKU.
public struct AdvancedCommercePriceIncreaseInfo: Codable, Hashable, Sendable {
    /// Other SKUs whose price changes with this one.
    public var dependentSKUs: [String]?

    /// The new price, in milliunits.
    public var price: Int64?

    /// Where the increase stands.
    public var status: AdvancedCommercePriceIncreaseInfoStatus?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        dependentSKUs: [String]? = nil,
        price: Int64? = nil,
        status: AdvancedCommercePriceIncreaseInfoStatus? = nil
    ) {
        self.dependentSKUs = dependentSKUs
        self.price = price
        self.status = status
    }
}
