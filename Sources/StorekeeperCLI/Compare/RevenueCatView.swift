import Foundation
import SubscriptionEngine

/// What RevenueCat's export says one customer has at an instant, read from its App Store rows.
///
/// A row gives access when it is not refunded and its `effective_end_time` (else `end_time`)
/// is after the instant, or it has no end and is not auto-renewable (a lifetime purchase; the
/// catalog's consumables give none). Of an auto-renewable chain only the latest row (by start
/// time) counts: an upgrade's earlier period no longer gives access. A row's entitlements are
/// `entitlement_identifiers`, or the catalog's entitlements of `product_identifier` when the
/// export does not list them.
struct RevenueCatView: Sendable {
    /// One active entitlement as RevenueCat grants it.
    struct Grant: Sendable, Codable, Hashable {
        var entitlement: String
        var productId: String?
        var originalTransactionId: String
        var endTime: Date?
    }

    /// The latest row of a chain (by start time): what RevenueCat last knew of it.
    struct ChainRow: Sendable, Hashable {
        var productId: String?
        var startTime: Date?
        var endTime: Date?
        var refundedAt: Date?
    }

    var appUserId: String
    var aliases: Set<String> = []
    var chains: [String: ChainRow] = [:]
    /// Active entitlements of one-time purchases by identifier (the longest-lasting of each).
    private var oneTimeGrants: [String: Grant] = [:]
    /// The latest row of each auto-renewable chain.
    private var latestRenewable: [String: RevenueCatExport.Row] = [:]

    init(appUserId: String) {
        self.appUserId = appUserId
    }

    /// Adds one App Store row of the customer.
    mutating func add(_ row: RevenueCatExport.Row, catalog: Catalog, at instant: Date) {
        aliases.formUnion(row.aliases)
        guard let chain = row.originalTransactionId else { return }
        let end = row.effectiveEndTime ?? row.endTime
        let known = chains[chain]
        if known == nil || (row.startTime ?? .distantPast) >= (known?.startTime ?? .distantPast) {
            chains[chain] = ChainRow(productId: row.productId, startTime: row.startTime, endTime: end, refundedAt: row.refundedAt)
        }
        let renewable = row.isAutoRenewable ?? (row.productId.flatMap { catalog.product($0)?.type } == .autoRenewable)
        if renewable {
            if let held = latestRenewable[chain], (held.startTime ?? .distantPast) > (row.startTime ?? .distantPast) { return }
            latestRenewable[chain] = row
            return
        }
        guard Self.isActive(row, end: end, catalog: catalog, at: instant) else { return }
        Self.grant(row, chain: chain, end: end, catalog: catalog, into: &oneTimeGrants)
    }

    /// Active entitlements by identifier (the longest-lasting grant of each).
    func grants(catalog: Catalog, at instant: Date) -> [String: Grant] {
        var grants = oneTimeGrants
        for (chain, row) in latestRenewable {
            let end = row.effectiveEndTime ?? row.endTime
            guard Self.isActive(row, end: end, catalog: catalog, at: instant) else { continue }
            Self.grant(row, chain: chain, end: end, catalog: catalog, into: &grants)
        }
        return grants
    }

    private static func grant(_ row: RevenueCatExport.Row, chain: String, end: Date?, catalog: Catalog, into grants: inout [String: Grant]) {
        let identifiers = row.entitlements ?? row.productId.map(catalog.entitlements(of:)) ?? []
        for identifier in identifiers {
            if let held = grants[identifier], (held.endTime ?? .distantFuture) >= (end ?? .distantFuture) { continue }
            grants[identifier] = Grant(entitlement: identifier, productId: row.productId, originalTransactionId: chain, endTime: end)
        }
    }

    static func isActive(_ row: RevenueCatExport.Row, end: Date?, catalog: Catalog, at instant: Date) -> Bool {
        if let refunded = row.refundedAt, refunded <= instant { return false }
        if let start = row.startTime, start > instant { return false }
        if let end { return end > instant }
        if row.isAutoRenewable == true { return false }
        if let productId = row.productId, catalog.product(productId)?.type == .consumable { return false }
        return true
    }
}
