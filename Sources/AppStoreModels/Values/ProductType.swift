/// The type of an in-app purchase as signed transactions spell it (`type`).
///
/// The App Store Server API's transaction-history filter uses other spellings: see
/// `TransactionHistoryRequest.ProductType`.
///
/// An open set: values Apple adds later decode, keep their raw value and encode back unchanged.
public struct ProductType: AppStoreOpenValue {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// An auto-renewable subscription.
    public static let autoRenewableSubscription = ProductType(rawValue: "Auto-Renewable Subscription")

    /// A non-consumable in-app purchase.
    public static let nonConsumable = ProductType(rawValue: "Non-Consumable")

    /// A consumable in-app purchase.
    public static let consumable = ProductType(rawValue: "Consumable")

    /// A non-renewing subscription.
    public static let nonRenewingSubscription = ProductType(rawValue: "Non-Renewing Subscription")

    public static let known: [ProductType] = [
        .autoRenewableSubscription, .nonConsumable, .consumable, .nonRenewingSubscription,
    ]
}
