/// The status of an auto-renewable subscription at an instant, with Apple's meaning of each
/// value (the App Store Server API's `status` 1–5).
public enum SubscriptionStatus: String, Sendable, Hashable, Codable, CaseIterable {
    /// A period covers the instant (status 1).
    case active
    /// No period covers the instant and Apple is not retrying a charge (status 2).
    case expired
    /// The period ended, billing failed and Apple is retrying; no access (status 3).
    case billingRetry
    /// Billing failed but the app's billing grace period keeps access (status 4).
    case gracePeriod
    /// Apple refunded the latest period or revoked it from Family Sharing (status 5).
    case revoked

    /// Apple's numeric status.
    public var appleStatusCode: Int {
        switch self {
        case .active: 1
        case .expired: 2
        case .billingRetry: 3
        case .gracePeriod: 4
        case .revoked: 5
        }
    }

    /// Reads Apple's numeric status; `nil` for a number Apple has not defined.
    public init?(appleStatusCode: Int) {
        guard let status = Self.allCases.first(where: { $0.appleStatusCode == appleStatusCode }) else { return nil }
        self = status
    }

    /// True when the status gives the customer access to the product (active or in grace).
    public var grantsAccess: Bool { self == .active || self == .gracePeriod }
}
