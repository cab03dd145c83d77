/// The body of Set App Account Token (API 1.16).
public struct UpdateAppAccountTokenRequest: Codable, Hashable, Sendable {
    /// The UUID to associate with the purchase, as a string.
    public var appAccountToken: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(appAccountToken: String) {
        self.appAccountToken = appAccountToken
    }
}
