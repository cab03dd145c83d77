/// The body of Configure Default Message for a product and locale.
public struct DefaultConfigurationRequest: Codable, Hashable, Sendable {
    /// The approved message to show by default (a UUID string).
    public var messageIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil) {
        self.messageIdentifier = messageIdentifier
    }
}
