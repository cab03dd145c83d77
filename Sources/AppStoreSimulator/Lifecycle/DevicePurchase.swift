import Foundation

/// A transaction a customer's device has just received from StoreKit and hands to the app's server.
public struct DevicePurchase: Sendable, Hashable {
    /// The app's own id of the customer.
    public var customerId: String
    public var appAccountToken: String?
    public var transactionId: String
    public var originalTransactionId: String
    public var productId: String
    /// The JWS transaction as StoreKit 2 gives it to the app.
    public var signedTransaction: String
    public var date: Date
}
