/// The response of Get Default Message.
public struct DefaultConfigurationResponse: Codable, Hashable, Sendable {
    /// The default message (a UUID string).
    public var messageIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil) {
        self.messageIdentifier = messageIdentifier
    }
}
