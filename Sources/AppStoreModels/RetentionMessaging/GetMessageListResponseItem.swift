/// An uploaded retention message and its review state.
public struct GetMessageListResponseItem: Codable, Hashable, Sendable {
    /// The message identifier (a UUID string).
    public var messageIdentifier: String?

    /// The review state.
    public var messageState: MessageState?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifier: String? = nil, messageState: MessageState? = nil) {
        self.messageIdentifier = messageIdentifier
        self.messageState = messageState
    }
}
