import Foundation

/// The result of Extend a Subscription Renewal Date.
public struct ExtendRenewalDateResponse: Codable, Hashable, Sendable {
    /// The transaction identifier of the original purchase; stable across renewals, restores and upgrades
    /// within a subscription group.
    public var originalTransactionId: String?

    /// Identifies a subscription purchase event across devices, including renewals.
    public var webOrderLineItemId: String?

    /// Whether the renewal date was extended.
    public var success: Bool?

    /// The new renewal date.
    @AppStoreDate public var effectiveDate: Date?

    /// Creates a value from its fields; optional fields default to absent.
    public init(
        originalTransactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        success: Bool? = nil,
        effectiveDate: Date? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.success = success
        self.effectiveDate = effectiveDate
    }
}
