/// The body of Configure Realtime URL.
public struct RealtimeUrlRequest: Codable, Hashable, Sendable {
    /// Your HTTPS endpoint for real-time retention requests.
    public var realtimeURL: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(realtimeURL: String) {
        self.realtimeURL = realtimeURL
    }
}
