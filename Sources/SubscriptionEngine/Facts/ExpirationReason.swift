import Foundation

/// Why an auto-renewable subscription expired, normalized from Apple's expiration intent
/// (legacy `expiration_intent`, StoreKit 2 `expirationIntent`, V2 `EXPIRED` subtypes).
public enum ExpirationReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// The customer turned auto-renew off (intent 1, subtype `VOLUNTARY`).
    case voluntary
    /// Billing failed and Apple's retries ended (intent 2, subtype `BILLING_RETRY`).
    case billingError
    /// The customer did not consent to a price increase (intent 3, subtype `PRICE_INCREASE`).
    case priceIncrease
    /// The product was not for sale at renewal (intent 4, subtype `PRODUCT_NOT_FOR_SALE`).
    case productUnavailable
    /// Apple gave another reason (intent 5) or one this engine does not know.
    case unknown

    /// Maps Apple's numeric expiration intent (1–5); other numbers are ``unknown``.
    public init(appleIntent: Int) {
        switch appleIntent {
        case 1: self = .voluntary
        case 2: self = .billingError
        case 3: self = .priceIncrease
        case 4: self = .productUnavailable
        default: self = .unknown
        }
    }
}
