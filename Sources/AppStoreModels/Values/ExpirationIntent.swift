/// Why a subscription expired (`expirationIntent`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ExpirationIntent: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The customer cancelled.
    public static let customerCancelled = ExpirationIntent(rawValue: 1)

    /// A billing error occurred.
    public static let billingError = ExpirationIntent(rawValue: 2)

    /// The customer did not consent to a price increase.
    public static let customerDidNotConsentToPriceIncrease = ExpirationIntent(rawValue: 3)

    /// The product was not available at renewal.
    public static let productNotAvailable = ExpirationIntent(rawValue: 4)

    /// Another reason.
    public static let other = ExpirationIntent(rawValue: 5)

    public static let known: [ExpirationIntent] = [
        .customerCancelled, .billingError, .customerDidNotConsentToPriceIncrease, .productNotAvailable,
        .other,
    ]
}
