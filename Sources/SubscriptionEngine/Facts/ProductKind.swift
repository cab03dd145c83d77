import Foundation

/// The four kinds of in-app product the App Store sells.
///
/// The engine's own vocabulary (camel case, as in a catalog file). Apple spells these
/// differently in each source ("Auto-Renewable Subscription" in StoreKit 2, `AUTO_RENEWABLE` in
/// the App Store Server API); ``init(appleValue:)`` reads every spelling.
public enum ProductKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// Renews automatically until cancelled; state comes from Apple's periods and renewal info.
    case autoRenewable
    /// Bought once for a fixed duration Apple does not track; the engine computes its end.
    case nonRenewing
    /// Used up once bought; kept only as a purchase log.
    case consumable
    /// Owned forever unless refunded or revoked.
    case nonConsumable

    /// Reads any of Apple's spellings of a product type, or `nil` for one the engine does not know.
    public init?(appleValue: String) {
        switch appleValue.lowercased().filter({ $0.isLetter }) {
        case "autorenewablesubscription", "autorenewable": self = .autoRenewable
        case "nonrenewingsubscription", "nonrenewable", "nonrenewing": self = .nonRenewing
        case "consumable": self = .consumable
        case "nonconsumable": self = .nonConsumable
        default: return nil
        }
    }

    /// Decodes the engine's spelling or any of Apple's, so a catalog may use either.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        if let value = ProductKind(rawValue: raw) ?? ProductKind(appleValue: raw) {
            self = value
        } else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: decoder.codingPath,
                    debugDescription: "Unknown product type \(raw.debugDescription); expected autoRenewable, nonRenewing, consumable or nonConsumable"
                ))
        }
    }
}
