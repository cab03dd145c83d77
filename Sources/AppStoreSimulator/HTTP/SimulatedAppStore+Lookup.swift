import AppStoreModels
import Foundation

/// The lookups Apple's endpoints need beyond the store's public API: "any transaction id"
/// resolution (transaction, original transaction or app transaction id) and transactions with
/// their modification order, which history and refund pages are cut by.
extension SimulatedAppStore {
    /// One transaction and its place in the store's modification order.
    struct ModifiedTransaction: Sendable {
        var sequence: Int
        var transaction: JWSTransactionDecodedPayload
    }

    /// The account a transaction id, original transaction id or app transaction id belongs to.
    func customer(ofAnyTransactionId id: String) -> String? {
        state.withLock { state in
            if let owner = state.owners[id] { return owner }
            return state.appTransactionIds.first { $0.value == id }?.key
        }
    }

    /// Whether `id` is some account's app transaction id (and no transaction's id).
    func isAppTransactionId(_ id: String) -> Bool {
        state.withLock { state in state.owners[id] == nil && state.appTransactionIds.values.contains(id) }
    }

    /// The account's transactions, each with its modification sequence number, oldest
    /// modification first.
    func modifiedTransactions(ofCustomer customerId: String) -> [ModifiedTransaction] {
        state.withLock { state in
            (state.transactionsByCustomer[customerId] ?? []).compactMap { id -> ModifiedTransaction? in
                guard let transaction = state.transactions[id] else { return nil }
                return ModifiedTransaction(sequence: state.modified[id] ?? 0, transaction: transaction)
            }
            .sorted { $0.sequence < $1.sequence }
        }
    }

    /// The transactions of one subscription chain (or one purchase), oldest purchase first.
    func transactions(ofOriginalTransactionId originalTransactionId: String) -> [JWSTransactionDecodedPayload] {
        guard let customer = customer(ofTransaction: originalTransactionId) else { return [] }
        return transactions(ofCustomer: customer)
            .filter { $0.originalTransactionId == originalTransactionId }
            .sorted { ($0.purchaseDate ?? .distantPast, $0.transactionId ?? "") < ($1.purchaseDate ?? .distantPast, $1.transactionId ?? "") }
    }
}
