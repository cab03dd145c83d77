/// The JSON body Apple POSTs to your Retention Messaging real-time URL.
public struct RealtimeRequestBody: Codable, Hashable, Sendable {
    /// The request, as a JWS (`DecodedRealtimeRequestBody`).
    public var signedPayload: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedPayload: String? = nil) {
        self.signedPayload = signedPayload
    }
}
