import Foundation

/// What the customer may use now, as the SDK knows it.
public struct CustomerInfo: Sendable, Hashable, Codable {
    /// Where an answer came from.
    public enum Source: String, Sendable, Hashable, Codable {
        /// The server answered just now.
        case server
        /// The server could not be reached; the last signed answer, inside the offline window.
        case cache
    }

    public var customerId: String
    /// The active entitlements, by identifier.
    public var entitlements: [String: EntitlementInfo]
    public var source: Source
    /// The server's clock when it signed the answer.
    public var serverDate: Date
    /// Until when this answer may be served without the server (``source`` `cache` only).
    public var offlineUntil: Date?

    /// Whether `identifier` is active.
    public func isEntitled(to identifier: String) -> Bool { entitlements[identifier] != nil }
}

/// One entitlement the customer has.
public struct EntitlementInfo: Sendable, Hashable, Codable {
    public var identifier: String
    public var productId: String
    /// `autoRenewable`, `nonRenewing`, `nonConsumable` or `consumable`.
    public var productType: String
    public var originalTransactionId: String
    /// When the paid access ends; `nil` for a non-consumable.
    public var expiresDate: Date?
    /// Whether the subscription renews (`nil` for other products).
    public var willRenew: Bool?
    /// `purchase`, `gracePeriod` or `offlineAllowance` (the server's reason for the access).
    public var basis: String
}
