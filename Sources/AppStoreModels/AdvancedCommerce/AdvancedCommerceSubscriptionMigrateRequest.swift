/// The body of the Advanced Commerce Migrate a Subscription request (move an App Store subscription to Advanced
/// Commerce).
public struct AdvancedCommerceSubscriptionMigrateRequest: Codable, Hashable, Sendable {
    /// The display name and description after migration.
    public var descriptors: AdvancedCommerceSubscriptionMigrateDescriptors

    /// The SKUs after migration.
    public var items: [AdvancedCommerceSubscriptionMigrateItem]

    /// The SKUs that renew, if different.
    public var renewalItems: [AdvancedCommerceSubscriptionMigrateRenewalItem]?

    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// The Advanced Commerce generic product to migrate to.
    public var targetProductId: String

    /// The tax code.
    public var taxCode: String

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        descriptors: AdvancedCommerceSubscriptionMigrateDescriptors,
        items: [AdvancedCommerceSubscriptionMigrateItem],
        renewalItems: [AdvancedCommerceSubscriptionMigrateRenewalItem]? = nil,
        requestInfo: AdvancedCommerceRequestInfo,
        storefront: String? = nil,
        targetProductId: String,
        taxCode: String
    ) {
        self.descriptors = descriptors
        self.items = items
        self.renewalItems = renewalItems
        self.requestInfo = requestInfo
        self.storefront = storefront
        self.targetProductId = targetProductId
        self.taxCode = taxCode
    }
}
