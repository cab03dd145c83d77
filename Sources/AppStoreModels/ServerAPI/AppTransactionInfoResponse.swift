/// The response of Get App Transaction Info.
public struct AppTransactionInfoResponse: Codable, Hashable, Sendable {
    /// The app transaction, as a JWS (`AppTransaction`).
    public var signedAppTransactionInfo: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(signedAppTransactionInfo: String? = nil) {
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}
