import Foundation

/// The log of what happened to customers and subscriptions.
public protocol EventLog: Sendable {
    /// The customer's events (recorded for it, or about a chain it owns), oldest first.
    func events(appId: String, customerId: String, limit: Int) async throws -> [EventRecord]
}
