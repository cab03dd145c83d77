/// A SKU to remove from an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionModifyRemoveItem: Codable, Hashable, Sendable {
    /// The SKU to remove.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(sku: String) {
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
    }
}

/// A new price for one SKU.
public struct AdvancedCommerceSubscriptionPriceChangeItem: Codable, Hashable, Sendable {
    /// The SKU.
    public var sku: String

    /// The new price, in milliunits.
    public var price: Int64

    /// Other SKUs whose price changes with this one.
    public var dependentSKUs: [String]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(sku: String, price: Int64, dependentSKUs: [String]? = nil) {
        self.sku = sku
        self.price = price
        self.dependentSKUs = dependentSKUs
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
        case price
        case dependentSKUs
    }
}

/// A SKU to reactivate.
public struct AdvancedCommerceSubscriptionReactivateItem: Codable, Hashable, Sendable {
    /// The SKU.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(sku: String) {
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case sku = "SKU"
    }
}

/// A SKU that renews after migration.
public struct AdvancedCommerceSubscriptionMigrateRenewalItem: Codable, Hashable, Sendable {
    /// The SKU's description.
    public var description: String

    /// The SKU's display name.
    public var displayName: String

    /// The SKU.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(description: String, displayName: String, sku: String) {
        self.description = description
        self.displayName = displayName
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case description
        case displayName
        case sku = "SKU"
    }
}

/// A SKU of a migrated subscription.
public struct AdvancedCommerceSubscriptionMigrateItem: Codable, Hashable, Sendable {
    /// The SKU's description.
    public var description: String

    /// The SKU's display name.
    public var displayName: String

    /// The SKU.
    public var sku: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(description: String, displayName: String, sku: String) {
        self.description = description
        self.displayName = displayName
        self.sku = sku
    }

    private enum CodingKeys: String, CodingKey {
        case description
        case displayName
        case sku = "SKU"
    }
}

/// A new billing period for an Advanced Commerce subscription.
public struct AdvancedCommerceSubscriptionModifyPeriodChange: Codable, Hashable, Sendable {
    /// When the change takes effect.
    public var effective: AdvancedCommerceEffective

    /// The new billing period.
    public var period: AdvancedCommercePeriod

    /// Creates a value from its fields; optional fields default to absent.
    public init(effective: AdvancedCommerceEffective, period: AdvancedCommercePeriod) {
        self.effective = effective
        self.period = period
    }
}

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
