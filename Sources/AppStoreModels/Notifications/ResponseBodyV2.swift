/// The JSON body Apple POSTs to your App Store Server Notifications V2 URL.
public struct ResponseBodyV2: Codable, Hashable, Sendable {
    /// The notification, as a JWS (`ResponseBodyV2DecodedPayload`).
    public var signedPayload: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedPayload: String? = nil) {
        self.signedPayload = signedPayload
    }
}
