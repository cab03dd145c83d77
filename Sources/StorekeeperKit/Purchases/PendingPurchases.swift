import Foundation

/// A charged purchase the server has not recorded yet, kept on disk across launches.
public struct PendingPurchase: Sendable, Hashable, Codable {
    public enum State: String, Sendable, Hashable, Codable {
        /// Posted again at the next launch, update or ``Storekeeper/retryPendingPurchases()``.
        case retrying
        /// Past the bound (or refused for good): reported to the server as a problem; left
        /// unfinished so a restore can still deliver it.
        case givenUp
    }

    public var transaction: StoreTransaction
    public var customerId: String
    public var attempts: Int
    public var lastError: String?
    public var state: State
    /// Whether the server has the problem report (a given-up purchase is reported until it has).
    public var problemReported: Bool
    public var firstAttempt: Date
}

/// The pending purchases' file (`pending-purchases.json`), written atomically at every change.
struct PendingPurchaseFile: Sendable {
    let url: URL

    func load() -> [PendingPurchase] {
        guard let data = try? Data(contentsOf: url) else { return [] }
        return (try? JSONDecoder().decode([PendingPurchase].self, from: data)) ?? []
    }

    func save(_ purchases: [PendingPurchase]) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        try encoder.encode(purchases).write(to: url, options: .atomic)
    }
}
