extension TransactionHistoryRequest {
    /// A product type as the transaction-history filter spells it (`productType` query parameter).
    ///
    /// Signed transactions spell types differently (`"Auto-Renewable Subscription"`); see the
    /// top-level ``AppStoreModels/ProductType`` and ``init(_:)``.
    /// An open set: values Apple adds later keep their raw value.
    public struct ProductType: AppStoreOpenValue {
        public let rawValue: String

        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// Auto-renewable subscriptions.
        public static let autoRenewable = ProductType(rawValue: "AUTO_RENEWABLE")

        /// Non-renewing subscriptions.
        public static let nonRenewable = ProductType(rawValue: "NON_RENEWABLE")

        /// Consumables.
        public static let consumable = ProductType(rawValue: "CONSUMABLE")

        /// Non-consumables.
        public static let nonConsumable = ProductType(rawValue: "NON_CONSUMABLE")

        public static let known: [ProductType] = [.autoRenewable, .nonRenewable, .consumable, .nonConsumable]

        /// The filter spelling of a payload product type, or `nil` for a type Apple has not documented.
        public init?(_ payloadType: AppStoreModels.ProductType) {
            switch payloadType {
            case .autoRenewableSubscription: self = .autoRenewable
            case .nonRenewingSubscription: self = .nonRenewable
            case .consumable: self = .consumable
            case .nonConsumable: self = .nonConsumable
            default: return nil
            }
        }
    }
}
