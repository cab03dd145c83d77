import Foundation
import StorekeeperStore
import SubscriptionEngine

/// The `subscription.status_changed` events new facts cause: each chain's state is computed by
/// the engine from the ledger before and after the facts, and a change of status (or a first
/// status) becomes an event. State itself is never stored: it is always recomputed.
///
/// The event says the same whatever the source: an Apple refund and the operator's revocation
/// of the same period both read `active` → `revoked`. It is keyed by the chain and the first of
/// the new facts that caused it, so the same facts bring the same event from any source, once.
package enum StatusChanges {
    /// `known` holds each chain's ledger before the facts; `fresh` the entries it lacks.
    package static func events(
        appId: String, known: [String: [LedgerEntry]], fresh: [LedgerEntry], catalog: Catalog, now: Date
    ) -> [EventRecord] {
        var events: [EventRecord] = []
        for (chain, ledger) in known.sorted(by: { $0.key < $1.key }) {
            let added = fresh.filter { $0.fact.originalTransactionId == chain }
            guard !added.isEmpty else { continue }
            let before = CustomerState(history: PurchaseHistory(ledger: ledger), catalog: catalog, at: now).subscription(chain)
            let after = CustomerState(history: PurchaseHistory(ledger: ledger + added), catalog: catalog, at: now).subscription(chain)
            guard let after, before?.status != after.status else { continue }
            events.append(
                EventRecord(
                    appId: appId, originalTransactionId: chain, type: .statusChanged,
                    details: EventDetails(
                        from: before?.status.rawValue, to: after.status.rawValue, productId: after.productId, expiresDate: after.expiresDate),
                    occurredAt: now, idempotencyKey: "status:\(chain):\(added.map(\.key).min() ?? "")"))
        }
        return events
    }
}
