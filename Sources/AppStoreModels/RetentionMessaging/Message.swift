/// A retention message to show.
public struct Message: Codable, Hashable, Sendable {
    /// The identifier of an approved message (a UUID string).
    public var messageIdentifier: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil) {
        self.messageIdentifier = messageIdentifier
    }
}
