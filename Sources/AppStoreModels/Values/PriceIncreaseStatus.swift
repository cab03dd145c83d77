/// The customer's response to a subscription price increase (`priceIncreaseStatus`).
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct PriceIncreaseStatus: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The customer has not yet responded to a price increase that requires consent.
    public static let customerHasNotResponded = PriceIncreaseStatus(rawValue: 0)

    /// The customer consented, or was notified of an increase that needs no consent.
    public static let customerConsentedOrWasNotifiedWithoutNeedingConsent = PriceIncreaseStatus(rawValue: 1)

    public static let known: [PriceIncreaseStatus] = [
        .customerHasNotResponded, .customerConsentedOrWasNotifiedWithoutNeedingConsent,
    ]
}
