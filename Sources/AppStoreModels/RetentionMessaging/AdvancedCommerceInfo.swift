/// A Retention Messaging answer for an Advanced Commerce subscription.
public struct AdvancedCommerceInfo: Codable, Hashable, Sendable {
    /// The identifier of an approved message (a UUID string).
    public var messageIdentifier: String?

    /// The Advanced Commerce data to present.
    public var advancedCommerceData: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil, advancedCommerceData: String? = nil) {
        self.messageIdentifier = messageIdentifier
        self.advancedCommerceData = advancedCommerceData
    }
}
