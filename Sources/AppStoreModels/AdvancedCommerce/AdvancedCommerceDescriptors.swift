/// The name and description a customer sees for an Advanced Commerce purchase.
///
/// Fields are optional so signed data always decodes; requests should set both.
public struct AdvancedCommerceDescriptors: Codable, Hashable, Sendable {
    /// The description (at most 45 characters).
    public var description: String?

    /// The display name (at most 30 characters).
    public var displayName: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(description: String? = nil, displayName: String? = nil) {
        self.description = description
        self.displayName = displayName
    }
}

/// New display name and description for an Advanced Commerce subscription, and when they apply.
public struct AdvancedCommerceSubscriptionModifyDescriptors: Codable, Hashable, Sendable {
    /// The new description.
    public var description: String?

    /// The new display name.
    public var displayName: String?

    /// When the change takes effect.
    public var effective: AdvancedCommerceEffective

    /// Creates a value from its fields; optional fields default to absent.
    public init(description: String? = nil, displayName: String? = nil, effective: AdvancedCommerceEffective) {
        self.description = description
        self.displayName = displayName
        self.effective = effective
    }
}

/// New display name and description for a subscription, and when they apply.
public struct AdvancedCommerceSubscriptionChangeMetadataDescriptors: Codable, Hashable, Sendable {
    /// The new description.
    public var description: String?

    /// The new display name.
    public var displayName: String?

    /// When the change takes effect.
    public var effective: AdvancedCommerceEffective

    /// Creates a value from its fields; optional fields default to absent.
    public init(description: String? = nil, displayName: String? = nil, effective: AdvancedCommerceEffective) {
        self.description = description
        self.displayName = displayName
        self.effective = effective
    }
}

/// The display name and description of a migrated subscription.
public struct AdvancedCommerceSubscriptionMigrateDescriptors: Codable, Hashable, Sendable {
    /// The description.
    public var description: String?

    /// The display name.
    public var displayName: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(description: String? = nil, displayName: String? = nil) {
        self.description = description
        self.displayName = displayName
    }
}
