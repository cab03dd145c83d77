/// The latest transactions of the subscriptions in one subscription group (in a `StatusResponse`).
public struct SubscriptionGroupIdentifierItem: Codable, Hashable, Sendable {
    /// The identifier of the subscription group the subscription belongs to.
    public var subscriptionGroupIdentifier: String?

    /// The most recent transaction of each subscription in the group.
    public var lastTransactions: [LastTransactionsItem]?

    /// Creates a value from its fields; optional fields default to absent.
    public init(subscriptionGroupIdentifier: String? = nil, lastTransactions: [LastTransactionsItem]? = nil) {
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.lastTransactions = lastTransactions
    }
}
