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
