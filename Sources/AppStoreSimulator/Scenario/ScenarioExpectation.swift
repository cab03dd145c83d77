import AppStoreModels

/// What a customer's subscription must look like on a day (fields left out are not checked).
public struct ScenarioExpectation: Sendable, Hashable, Codable {
    public var day: Double
    public var customer: String
    /// `active`, `expired`, `billingRetry`, `gracePeriod` or `revoked`.
    public var status: String?
    public var product: String?
    public var autoRenew: Bool?
    /// Whether the customer's family member's shared copy is checked instead.
    public var family: Bool?

    static let statuses: [String: Status] = [
        "active": .active, "expired": .expired, "billingRetry": .billingRetry, "gracePeriod": .billingGracePeriod, "revoked": .revoked,
    ]

    /// Apple's status for the expected name.
    public var appleStatus: Status? { status.flatMap { Self.statuses[$0] } }
}
