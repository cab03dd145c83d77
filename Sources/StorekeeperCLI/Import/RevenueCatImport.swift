import Foundation
import StorekeeperJobs
import StorekeeperStore

/// Imports the customers of a ``RevenueCatImportPlan``: each keeps its RevenueCat app user id
/// as its customer id, its other app user ids become `appUserId` aliases, and each of its
/// chains' full history comes from Apple through the ``TransactionImporter`` (resumable with
/// its progress file), so the state is Apple's signed data and never the export's columns.
struct RevenueCatImport {
    let appId: String
    let store: any StorekeeperStorage
    let importer: TransactionImporter
    let now: @Sendable () -> Date

    /// What could not be linked, and why: one per customer and chain or alias, or per line.
    struct Failure: Sendable, Codable, Hashable {
        var customerId: String?
        var originalTransactionId: String?
        var alias: String?
        var line: Int?
        var code: TransactionImporter.Failure.Code
        var message: String
        var appleErrorCode: Int64?
        var productIds: [String]?
    }

    struct Summary: Sendable, Codable {
        struct Aliases: Sendable, Codable {
            var linked = 0
            var alreadyLinked = 0
            var failed = 0
        }

        var format: String
        var compressed: Bool
        var rows: Int
        var appStoreRows: Int
        var malformedRows: Int
        /// Rows of other stores, not Storekeeper's, by store.
        var skippedByStore: [String: Int]
        var customers: Int
        /// Customers all of whose chains and aliases are in Storekeeper.
        var customersLinked: Int
        var aliases = Aliases()
        var chains: TransactionImporter.Summary
        var failures: [Failure] = []
        /// Whether this run wrote anything (a repeated run writes nothing).
        var changed = false
        var note: String
        var seconds: Double
        var rowsPerSecond: Double
    }

    func run(_ plan: RevenueCatImportPlan, progressFile: String?, progress: @Sendable (Int, Int, String) -> Void) async throws -> Summary {
        let started = Date()
        var failures: [Failure] = plan.malformed.map {
            Failure(line: $0.line, code: .malformedRow, message: "line \($0.line): \($0.reason)")
        }
        var failedCustomers = Set<String>()
        var aliases = Summary.Aliases()
        for customer in plan.customers {
            for alias in customer.aliases {
                let value = CustomerAlias(kind: .appUserId, value: alias)
                if let owner = try await store.customer(appId: appId, alias: value) {
                    if CustomerId.same(owner, customer.appUserId) {
                        aliases.alreadyLinked += 1
                        continue
                    }
                    aliases.failed += 1
                    failedCustomers.insert(customer.appUserId)
                    failures.append(
                        Failure(
                            customerId: customer.appUserId, alias: alias, code: .aliasOwnedByAnotherCustomer,
                            message: "the app user id \(alias) is already another customer's (\(owner))"))
                    continue
                }
                do {
                    try await store.apply(
                        Changeset(appId: appId, at: now(), links: [CustomerLink(customerId: customer.appUserId, aliases: [value])]))
                    aliases.linked += 1
                } catch let error as StoreError where error.code == .aliasConflict {
                    aliases.failed += 1
                    failedCustomers.insert(customer.appUserId)
                    failures.append(
                        Failure(customerId: customer.appUserId, alias: alias, code: .aliasOwnedByAnotherCustomer, message: error.message))
                }
            }
        }
        for contested in plan.contested {
            failedCustomers.insert(contested.claimedBy)
            failures.append(
                Failure(
                    customerId: contested.claimedBy, originalTransactionId: contested.originalTransactionId, line: contested.line,
                    code: .chainOwnedByAnotherCustomer,
                    message: "the export gives this chain to \(contested.owner) first; it is imported for them"))
        }
        var owners: [String: String] = [:]
        var items: [TransactionImporter.Item] = []
        for customer in plan.customers {
            for chain in customer.chains {
                owners[chain] = customer.appUserId
                items.append(TransactionImporter.Item(originalTransactionId: chain, customerId: customer.appUserId))
            }
        }
        let chains = try await importer.run(appId: appId, items: items, progressFile: progressFile, progress: progress)
        for (chain, failure) in chains.failureDetails.sorted(by: { $0.key < $1.key }) {
            if let owner = owners[chain] { failedCustomers.insert(owner) }
            failures.append(
                Failure(
                    customerId: owners[chain], originalTransactionId: chain, code: failure.code, message: failure.message,
                    appleErrorCode: failure.appleErrorCode, productIds: failure.productIds))
        }
        let seconds = Date().timeIntervalSince(started)
        let changed = aliases.linked > 0 || chains.newLedgerEntries > 0
        let note: String
        switch (changed, failures.isEmpty) {
        case (false, true): note = "nothing changed: every customer, alias and chain of the export was already in Storekeeper"
        case (true, true): note = "every customer of the export is linked"
        case (false, false): note = "nothing changed; \(failures.count) could not be linked (see failures)"
        case (true, false): note = "\(failures.count) could not be linked: run again to retry the chains (finished ones are skipped)"
        }
        return Summary(
            format: plan.format.rawValue, compressed: plan.compressed, rows: plan.rows, appStoreRows: plan.appStoreRows,
            malformedRows: plan.malformed.count, skippedByStore: plan.skippedByStore, customers: plan.customers.count,
            customersLinked: plan.customers.count - failedCustomers.intersection(plan.customers.map(\.appUserId)).count, aliases: aliases,
            chains: chains, failures: failures, changed: changed, note: note, seconds: (seconds * 1000).rounded() / 1000,
            rowsPerSecond: seconds > 0 ? (Double(plan.rows) / seconds).rounded() : 0)
    }
}

extension TransactionImporter.Failure.Code {
    /// A row of the export that cannot be read (its line is given).
    static let malformedRow = Self(rawValue: "malformed_row")
    /// Another app user id of the customer is already another customer's alias.
    static let aliasOwnedByAnotherCustomer = Self(rawValue: "alias_owned_by_another_customer")
}
