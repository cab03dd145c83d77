/// Identifies an Advanced Commerce request, and optionally the customer and the state it expects.
public struct AdvancedCommerceRequestInfo: Codable, Hashable, Sendable {
    /// Your unique identifier of the request (a UUID string).
    public var requestReferenceId: String

    /// The UUID of the customer's account in your app, as a string.
    public var appAccountToken: String?

    /// The `consistencyToken` from the latest renewal info, so Apple rejects the request if the subscription
    /// changed meanwhile.
    public var consistencyToken: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(requestReferenceId: String, appAccountToken: String? = nil, consistencyToken: String? = nil) {
        self.requestReferenceId = requestReferenceId
        self.appAccountToken = appAccountToken
        self.consistencyToken = consistencyToken
    }
}

/// An Advanced Commerce request your server signs and the app passes to StoreKit
/// (create subscription, one-time charge, modify, reactivate).
///
/// Its JSON always carries the constant `operation` and `version`, which is what the signer
/// (JWS audience `advanced-commerce-api`, claim `request` = Base64 of this JSON) embeds.
public protocol AdvancedCommerceInAppRequest: Encodable, Sendable {
    /// The operation, e.g. `CREATE_SUBSCRIPTION`.
    var operation: String { get }

    /// The request format version (`"1"`).
    var version: String { get }
}

/// The body of the Advanced Commerce Cancel a Subscription request.
public struct AdvancedCommerceSubscriptionCancelRequest: Codable, Hashable, Sendable {
    /// Identifies the request (and optionally the customer and expected state).
    public var requestInfo: AdvancedCommerceRequestInfo

    /// The storefront (ISO 3166-1 alpha-3) to use instead of the customer's.
    public var storefront: String?

    /// Creates a value from its fields; optional fields default to absent.
    public init(requestInfo: AdvancedCommerceRequestInfo, storefront: String? = nil) {
        self.requestInfo = requestInfo
        self.storefront = storefront
    }
}
