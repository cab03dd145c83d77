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
