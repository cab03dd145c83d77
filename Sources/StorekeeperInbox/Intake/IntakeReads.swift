import StorekeeperStore

/// What deciding a submission reads: chains' ledgers and event keys, aliases' owners, and
/// whether a notification was processed before.
package protocol IntakeReads: Sendable {
    func ledger(appId: String, originalTransactionId: String) async throws -> [LedgerEntry]
    func eventKeys(appId: String, originalTransactionId: String) async throws -> RecordedEvents
    func customer(appId: String, alias: CustomerAlias) async throws -> String?
}

/// Reads straight from the store.
package struct StoreReads: IntakeReads {
    package let store: any LedgerRepository & CustomerRepository & EventLog

    package func ledger(appId: String, originalTransactionId: String) async throws -> [LedgerEntry] {
        try await store.ledger(appId: appId, originalTransactionId: originalTransactionId)
    }

    package func eventKeys(appId: String, originalTransactionId: String) async throws -> RecordedEvents {
        try await store.eventKeys(appId: appId, originalTransactionId: originalTransactionId)
    }

    package func customer(appId: String, alias: CustomerAlias) async throws -> String? {
        try await store.customer(appId: appId, alias: alias)
    }
}

/// What a run of notifications about different chains reads, fetched for the whole run in a
/// few queries before its rows are decided (``InboxProcessor``). Exact because no row of the
/// run writes what another reads, and nothing is written until the run is decided; anything
/// not fetched is read from the store.
package struct PrefetchedReads: IntakeReads {
    package let appId: String
    package let chains: Set<String>
    package let aliases: Set<CustomerAlias>
    package let ledgers: [String: [LedgerEntry]]
    package let eventKeys: [String: RecordedEvents]
    package let owners: [CustomerAlias: String]
    /// The uuids asked about (lowercased), and the processed rows carrying each.
    package let notificationUUIDs: Set<String>
    package let processed: [String: Set<Int64>]
    package let store: StoreReads

    /// Reads everything the run's rows will ask about `chains`, `aliases` and `notificationUUIDs`.
    package static func fetch(
        appId: String, chains: Set<String>, aliases: Set<CustomerAlias>, notificationUUIDs: Set<String>,
        from store: any LedgerRepository & CustomerRepository & EventLog & NotificationInbox
    ) async throws -> PrefetchedReads {
        let chainList = chains.sorted()
        let uuids = Set(notificationUUIDs.map { $0.lowercased() })
        return PrefetchedReads(
            appId: appId, chains: chains, aliases: aliases,
            ledgers: chainList.isEmpty ? [:] : try await store.ledgers(appId: appId, originalTransactionIds: chainList),
            eventKeys: chainList.isEmpty ? [:] : try await store.eventKeys(appId: appId, originalTransactionIds: chainList),
            owners: aliases.isEmpty ? [:] : try await store.customers(appId: appId, aliases: Array(aliases)),
            notificationUUIDs: uuids,
            processed: uuids.isEmpty ? [:] : try await store.processedNotifications(appId: appId, notificationUUIDs: uuids.sorted()),
            store: StoreReads(store: store))
    }

    package func ledger(appId: String, originalTransactionId: String) async throws -> [LedgerEntry] {
        guard appId == self.appId, chains.contains(originalTransactionId) else {
            return try await store.ledger(appId: appId, originalTransactionId: originalTransactionId)
        }
        return ledgers[originalTransactionId] ?? []
    }

    package func eventKeys(appId: String, originalTransactionId: String) async throws -> RecordedEvents {
        guard appId == self.appId, chains.contains(originalTransactionId) else {
            return try await store.eventKeys(appId: appId, originalTransactionId: originalTransactionId)
        }
        return eventKeys[originalTransactionId] ?? []
    }

    package func customer(appId: String, alias: CustomerAlias) async throws -> String? {
        guard appId == self.appId, aliases.contains(alias) else { return try await store.customer(appId: appId, alias: alias) }
        return owners[alias]
    }

    /// Whether a row other than `exceptId` carrying `notificationUUID` was processed; nil when
    /// the uuid was not fetched.
    package func isProcessed(appId: String, notificationUUID: String, exceptId: Int64) -> Bool? {
        let uuid = notificationUUID.lowercased()
        guard appId == self.appId, notificationUUIDs.contains(uuid) else { return nil }
        return !(processed[uuid] ?? []).subtracting([exceptId]).isEmpty
    }
}
