/// The response of Get Message List.
public struct GetMessageListResponse: Codable, Hashable, Sendable {
    /// The uploaded messages.
    public var messageIdentifiers: [GetMessageListResponseItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(messageIdentifiers: [GetMessageListResponseItem]? = nil) {
        self.messageIdentifiers = messageIdentifiers
    }
}
