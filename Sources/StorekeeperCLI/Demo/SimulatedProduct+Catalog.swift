import AppStoreModels
import AppStoreSimulator
import SubscriptionEngine

extension SimulatedProduct {
    /// The product as the server's catalog lists it: its kind, group, period (a subscription's
    /// billing period, a pass's duration) and base price.
    var catalogProduct: CatalogProduct {
        let kind: ProductKind =
            switch type {
            case .autoRenewableSubscription: .autoRenewable
            case .nonRenewingSubscription: .nonRenewing
            case .consumable: .consumable
            default: .nonConsumable
            }
        let length = period.flatMap(ISO8601Duration.init)
        return CatalogProduct(
            productId: productId, type: kind, subscriptionGroupIdentifier: subscriptionGroupIdentifier,
            duration: kind == .nonRenewing ? length : nil, price: Double(price) / 1000, currency: currency,
            subscriptionPeriod: kind == .autoRenewable ? length : nil)
    }
}
