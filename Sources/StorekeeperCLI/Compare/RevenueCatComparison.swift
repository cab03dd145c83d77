import Foundation
import StorekeeperStore
import SubscriptionEngine

/// Compares, customer by customer, the active entitlements a RevenueCat export gives with the
/// ones Storekeeper's engine computes from the ledger at the same instant, and says why each
/// difference arises.
///
/// The export is read once, row by row; memory grows with its customers, not its rows.
struct RevenueCatComparison {
    let appId: String
    let catalog: Catalog
    let store: any StorekeeperStorage
    let instant: Date

    /// Why an entitlement differs: an open set, so readers keep reasons added later.
    struct Reason: RawRepresentable, Sendable, Codable, Hashable {
        let rawValue: String
        init(rawValue: String) { self.rawValue = rawValue }
        init(from decoder: any Decoder) throws { rawValue = try decoder.singleValueContainer().decode(String.self) }
        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        static let customerUnknown = Reason(rawValue: "customer_unknown")
        static let chainNotImported = Reason(rawValue: "chain_not_imported")
        static let chainNotLinked = Reason(rawValue: "chain_not_linked")
        static let chainOwnedByAnotherCustomer = Reason(rawValue: "chain_owned_by_another_customer")
        static let expiredInStorekeeper = Reason(rawValue: "expired_in_storekeeper")
        static let refundedInStorekeeper = Reason(rawValue: "refunded_in_storekeeper")
        static let differentProduct = Reason(rawValue: "different_product")
        static let notActiveInStorekeeper = Reason(rawValue: "not_active_in_storekeeper")
        static let entitlementOnlyInStorekeeper = Reason(rawValue: "entitlement_only_in_storekeeper")
        static let expiredInRevenueCat = Reason(rawValue: "expired_in_revenuecat")
        static let refundedInRevenueCat = Reason(rawValue: "refunded_in_revenuecat")
        /// Not decided yet.
        static let unknown = Reason(rawValue: "")
    }

    /// One entitlement that differs, and why.
    struct Difference: Sendable, Codable, Hashable {
        var entitlement: String
        var reason: Reason
        var message: String
        var originalTransactionId: String?
        var revenueCatProductId: String?
        var revenueCatEndTime: Date?
        var storekeeperProductId: String?
        var storekeeperExpiresDate: Date?
        var storekeeperStatus: String?
    }

    struct Customer: Sendable, Codable, Hashable {
        var customerId: String
        var revenueCat: [String]
        var storekeeper: [String]
        var differences: [Difference]
    }

    struct Report: Sendable, Codable {
        var at: Date
        var rows: Int
        var malformedRows: Int
        var skippedByStore: [String: Int]
        var customers: Int
        var matching: Int
        var differing: Int
        var differences: [Customer]
    }

    func run(path: String) async throws -> Report {
        var export = try RevenueCatExport(path: path)
        guard export.format == .scheduledExport else {
            throw RevenueCatExport.Unreadable(description: "\(path) is a plain list: only RevenueCat's scheduled export says what is active")
        }
        var views: [ExactId: RevenueCatView] = [:]
        var order: [ExactId] = []
        var rows = 0
        var malformed = 0
        var skipped: [String: Int] = [:]
        while let entry = try export.next() {
            rows += 1
            switch entry {
            case .malformed: malformed += 1
            case .row(let row) where !row.isAppStore: skipped[row.store, default: 0] += 1
            case .row(let row):
                let id = ExactId(row.appUserId)
                if views[id] == nil {
                    views[id] = RevenueCatView(appUserId: row.appUserId)
                    order.append(id)
                }
                views[id]?.add(row, catalog: catalog, at: instant)
            }
        }
        var differing: [Customer] = []
        for appUserId in order {
            guard let view = views.removeValue(forKey: appUserId) else { continue }
            if let customer = try await compare(view) { differing.append(customer) }
        }
        return Report(
            at: instant, rows: rows, malformedRows: malformed, skippedByStore: skipped, customers: order.count,
            matching: order.count - differing.count, differing: differing.count, differences: differing)
    }

    /// The customer's differences, or nil when both give the same entitlements.
    func compare(_ view: RevenueCatView) async throws -> Customer? {
        let known = try await store.customerExists(appId: appId, customerId: view.appUserId)
        let ledger = known ? try await store.ledger(appId: appId, customerId: view.appUserId) : []
        let state = CustomerState(history: PurchaseHistory(ledger: ledger), catalog: catalog, at: instant)
        let ours = Dictionary(state.entitlements.map { ($0.identifier, $0) }, uniquingKeysWith: { first, _ in first })
        let theirs = view.grants(catalog: catalog, at: instant)
        var differences: [Difference] = []
        for identifier in Set(ours.keys).union(theirs.keys).sorted() {
            switch (theirs[identifier], ours[identifier]) {
            case (let grant?, let entitlement?):
                guard grant.productId != nil, grant.productId != entitlement.productId else { continue }
                differences.append(
                    Difference(
                        entitlement: identifier, reason: .differentProduct,
                        message: "RevenueCat grants it through \(grant.productId ?? "?"), Storekeeper through \(entitlement.productId)",
                        originalTransactionId: entitlement.originalTransactionId, revenueCatProductId: grant.productId,
                        revenueCatEndTime: grant.endTime, storekeeperProductId: entitlement.productId,
                        storekeeperExpiresDate: entitlement.expiresDate))
            case (let grant?, nil):
                differences.append(try await onlyInRevenueCat(grant, customerId: view.appUserId, known: known, state: state))
            case (nil, let entitlement?):
                differences.append(onlyInStorekeeper(entitlement, view: view))
            case (nil, nil):
                continue
            }
        }
        guard !differences.isEmpty else { return nil }
        return Customer(
            customerId: view.appUserId, revenueCat: theirs.keys.sorted(), storekeeper: ours.keys.sorted(), differences: differences)
    }

    private func onlyInRevenueCat(
        _ grant: RevenueCatView.Grant, customerId: String, known: Bool, state: CustomerState
    ) async throws -> Difference {
        var difference = Difference(
            entitlement: grant.entitlement, reason: .unknown, message: "", originalTransactionId: grant.originalTransactionId,
            revenueCatProductId: grant.productId, revenueCatEndTime: grant.endTime)
        let until = grant.endTime.map { " until \(RevenueCatExport.format($0)) UTC" } ?? ""
        if let subscription = state.subscription(grant.originalTransactionId) {
            difference.storekeeperProductId = subscription.productId
            difference.storekeeperExpiresDate = subscription.expiresDate
            difference.storekeeperStatus = subscription.status.rawValue
            let expiry = subscription.expiresDate.map { " on \(RevenueCatExport.format($0)) UTC" } ?? ""
            switch subscription.status {
            case .revoked:
                difference.reason = .refundedInStorekeeper
                difference.message = "Apple revoked the chain (a refund) and RevenueCat still grants it\(until)"
            case .expired, .billingRetry:
                difference.reason = .expiredInStorekeeper
                difference.message = "expired in Storekeeper\(expiry), active in RevenueCat\(until)"
            default:
                difference.reason = .differentProduct
                difference.message = "Storekeeper's chain is \(subscription.productId), which does not grant \(grant.entitlement)"
            }
            return difference
        }
        if !known {
            difference.reason = .customerUnknown
            difference.message = "Storekeeper has no customer with this app user id"
            return difference
        }
        let owner = try await store.customer(appId: appId, alias: .originalTransactionId(grant.originalTransactionId))
        if let owner, !CustomerId.same(owner, customerId) {
            difference.reason = .chainOwnedByAnotherCustomer
            difference.message = "the chain belongs to \(owner) in Storekeeper"
            return difference
        }
        let ledger = try await store.ledger(appId: appId, originalTransactionId: grant.originalTransactionId)
        if ledger.isEmpty {
            difference.reason = .chainNotImported
            difference.message = "Storekeeper has nothing of this chain: import it"
            return difference
        }
        if owner == nil {
            difference.reason = .chainNotLinked
            difference.message = "the chain is in Storekeeper but linked to no customer"
            return difference
        }
        difference.reason = .notActiveInStorekeeper
        difference.message = "Storekeeper's engine grants no \(grant.entitlement) from this chain"
        return difference
    }

    private func onlyInStorekeeper(_ entitlement: Entitlement, view: RevenueCatView) -> Difference {
        var difference = Difference(
            entitlement: entitlement.identifier, reason: .entitlementOnlyInStorekeeper, message: "",
            originalTransactionId: entitlement.originalTransactionId, storekeeperProductId: entitlement.productId,
            storekeeperExpiresDate: entitlement.expiresDate)
        let expiry = entitlement.expiresDate.map { " until \(RevenueCatExport.format($0)) UTC" } ?? ""
        guard let row = view.chains[entitlement.originalTransactionId] else {
            difference.message = "Storekeeper grants it\(expiry) from a chain the export does not list"
            return difference
        }
        difference.revenueCatProductId = row.productId
        difference.revenueCatEndTime = row.endTime
        if let refunded = row.refundedAt, refunded <= instant {
            difference.reason = .refundedInRevenueCat
            difference.message = "RevenueCat marks the chain refunded on \(RevenueCatExport.format(refunded)) UTC; Storekeeper grants it\(expiry)"
        } else if let end = row.endTime, end <= instant {
            difference.reason = .expiredInRevenueCat
            difference.message = "expired in RevenueCat on \(RevenueCatExport.format(end)) UTC, active in Storekeeper\(expiry)"
        } else {
            difference.message = "Storekeeper grants it\(expiry); RevenueCat's rows of the chain do not"
        }
        return difference
    }
}
