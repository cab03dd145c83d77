/// The status of an auto-renewable subscription, as Get All Subscription Statuses and notifications report it.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct Status: AppStoreOpenValue {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// The subscription is active.
    public static let active = Status(rawValue: 1)

    /// The subscription expired.
    public static let expired = Status(rawValue: 2)

    /// The App Store is retrying a failed renewal.
    public static let billingRetry = Status(rawValue: 3)

    /// Renewal failed; the customer keeps service during the billing grace period.
    public static let billingGracePeriod = Status(rawValue: 4)

    /// The subscription was revoked (refund or Family Sharing).
    public static let revoked = Status(rawValue: 5)

    public static let known: [Status] = [
        .active, .expired, .billingRetry, .billingGracePeriod, .revoked,
    ]
}
