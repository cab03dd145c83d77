import Foundation

/// Customers and the aliases that link Apple's identifiers to them, per app.
public protocol CustomerRepository: Sendable {
    /// Whether the customer exists in the app.
    func customerExists(appId: String, customerId: String) async throws -> Bool
    /// The customer an alias belongs to, if any.
    func customer(appId: String, alias: CustomerAlias) async throws -> String?
    /// The customer's aliases.
    func aliases(appId: String, customerId: String) async throws -> [CustomerAlias]
}
