/// The two notification formats Apple can send an app: each has its own URL, body and retry
/// schedule, and only V2 appears in the notification history the App Store Server API serves.
public enum DeliveryChannel: String, Sendable, Hashable, Codable, CaseIterable {
    /// App Store Server Notifications V2: `{"signedPayload": "<JWS>"}`.
    case v2
    /// The deprecated V1 notifications (a JSON body with `unified_receipt`).
    case v1
}
