import Foundation
import StorekeeperStore
import SubscriptionEngine

/// The `subscription.status_changed` events a set of new facts causes: each chain's state is
/// computed by the engine from the ledger before and after the facts, and a change of status
/// (or a first state) becomes an event. State itself is never stored: it is always recomputed.
enum StatusChanges {
    static func events(
        appId: String, chains: Set<String>, newEntries: [LedgerEntry], catalog: Catalog, store: any StorekeeperStorage,
        customerId: String?, cause: String, now: Date
    ) async throws -> [EventRecord] {
        var events: [EventRecord] = []
        for chain in chains.sorted() {
            let known = try await store.ledger(appId: appId, originalTransactionId: chain)
            let knownKeys = Set(known.map(\.key))
            let fresh = newEntries.filter { !knownKeys.contains($0.key) }
            guard !fresh.isEmpty else { continue }
            let before = CustomerState(history: PurchaseHistory(ledger: known), catalog: catalog, at: now).subscription(chain)
            let after = CustomerState(history: PurchaseHistory(ledger: known + fresh), catalog: catalog, at: now).subscription(chain)
            guard let after, before?.status != after.status else { continue }
            let payload = InboxProcessor.json([
                "from": before?.status.rawValue, "to": after.status.rawValue, "productId": after.productId,
                "expiresDate": after.expiresDate.map { ISO8601DateFormatter().string(from: $0) },
            ])
            events.append(EventRecord(
                appId: appId, customerId: customerId, originalTransactionId: chain, type: "subscription.status_changed",
                payload: payload, occurredAt: now, idempotencyKey: "status:\(chain):\(cause)"))
        }
        return events
    }
}

extension InboxProcessor {
    /// Resolves the customer links a notification implies (its `appAccountToken` names a
    /// known customer) and adds the status changes its facts cause.
    func enrich(_ changeset: Changeset, app: AppRuntime?, now: Date) async throws -> Changeset {
        guard let app, changeset.inboxOutcome?.state == .processed else { return changeset }
        var result = changeset
        result.links = []
        for link in changeset.links {
            guard let token = link.aliases.first(where: { $0.kind == .appAccountToken }),
                let customer = try await store.customer(appId: app.id, alias: token)
            else { continue }
            let chains = link.aliases.filter { $0.kind == .originalTransactionId }
            var owned = true
            for chain in chains {
                if let owner = try await store.customer(appId: app.id, alias: chain), owner != customer { owned = false }
            }
            if owned { result.links.append(CustomerLink(customerId: customer, aliases: chains)) }
        }
        let chains = Set(changeset.entries.compactMap(\.fact.originalTransactionId))
        var customer: String?
        if let chain = chains.first {
            customer = try await store.customer(appId: app.id, alias: .originalTransactionId(chain)) ?? result.links.first?.customerId
        }
        for index in result.events.indices where result.events[index].customerId == nil {
            result.events[index].customerId = customer
        }
        let cause = changeset.events.first?.idempotencyKey ?? "inbox-\(changeset.inboxOutcome?.inboxId ?? 0)"
        result.events += try await StatusChanges.events(
            appId: app.id, chains: chains, newEntries: changeset.entries, catalog: app.catalog, store: store,
            customerId: customer, cause: cause, now: now)
        return result
    }
}
