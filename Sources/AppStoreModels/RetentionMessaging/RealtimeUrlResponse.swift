/// The response of Get Realtime URL.
public struct RealtimeUrlResponse: Codable, Hashable, Sendable {
    /// The configured real-time URL.
    public var realtimeURL: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(realtimeURL: String? = nil) {
        self.realtimeURL = realtimeURL
    }
}
