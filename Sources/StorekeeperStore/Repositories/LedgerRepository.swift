import Foundation

/// The ledger of facts, written through changesets.
public protocol LedgerRepository: Sendable {
    /// Applies a changeset in one transaction. Throws ``StoreError`` with
    /// ``StoreError/Code/aliasConflict`` (and writes nothing) when a link names an alias
    /// another customer owns.
    @discardableResult
    func apply(_ changeset: Changeset) async throws -> ChangesetResult
    /// Every entry of the customer: recorded for it, or about a chain it owns; oldest signed first.
    func ledger(appId: String, customerId: String) async throws -> [LedgerEntry]
    /// Every entry about one chain (and revocations of its transactions); oldest signed first.
    func ledger(appId: String, originalTransactionId: String) async throws -> [LedgerEntry]
    /// The entries about one transaction (its purchase facts and revocations).
    func ledger(appId: String, transactionId: String) async throws -> [LedgerEntry]
}
