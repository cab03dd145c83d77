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
