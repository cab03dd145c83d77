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
