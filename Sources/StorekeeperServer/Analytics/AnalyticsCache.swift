import Foundation
import StorekeeperStore
import SubscriptionAnalytics
import SubscriptionEngine

/// Per app and environment, the ``SnapshotIndex`` of the app's ledger, kept in memory and
/// brought up to date from the rows recorded since it was built: each chain those rows name is
/// re-read and re-indexed (a late fact about a past day changes that day), and anything the
/// rows cannot account for (rows committed out of id order, rows without a chain, a changed
/// configuration, a large backlog) rebuilds the index from the whole ledger. Every answer is
/// therefore the one a replay of the ledger would give.
actor AnalyticsCache {
    struct Entry {
        var index: SnapshotIndex
        var version: LedgerVersion
        var analytics: AnalyticsConfiguration
        var catalog: Catalog
    }

    /// Above this many chains touched since the last look, rebuilding is cheaper.
    let incrementalLimit: Int
    private var entries: [String: Entry] = [:]
    /// Rebuilds and incremental updates so far (for tests and logs).
    private(set) var rebuilds = 0
    private(set) var updates = 0

    init(incrementalLimit: Int = 2_000) {
        self.incrementalLimit = incrementalLimit
    }

    /// The index of `app`'s facts in `environment` as the ledger holds them now.
    func index(of app: AppConfiguration, environment: String, store: any LedgerRepository & ReconciliationQueries) async throws -> SnapshotIndex {
        let key = app.id + "\u{0}" + environment
        let version = try await store.ledgerVersion(appId: app.id)
        if var entry = entries[key], entry.analytics == app.analytics, entry.catalog == app.catalog {
            if entry.version == version { return entry.index }
            if version.lastId >= entry.version.lastId {
                let fresh = try await store.ledger(appId: app.id, after: entry.version.lastId, through: version.lastId)
                let chains = Set(fresh.compactMap(\.fact.originalTransactionId))
                if entry.version.count + fresh.count == version.count, fresh.allSatisfy({ $0.fact.originalTransactionId != nil }),
                    chains.count <= incrementalLimit
                {
                    for chain in chains.sorted() {
                        let facts = try await store.ledger(appId: app.id, originalTransactionId: chain)
                        entry.index.replace(chain: chain, with: PurchaseHistory(ledger: facts))
                    }
                    entry.version = version
                    entries[key] = entry
                    updates += 1
                    return entry.index
                }
            }
        }
        // Built chain by chain, a group at a time, so the whole ledger is never in memory: rows
        // recorded while it is built come after `version` and are caught up next time (re-indexing
        // a chain is idempotent). Rows without a chain belong to no chain's runs. The next
        // groups are read while this one is computed (two queries at once: on PostgreSQL the
        // build otherwise waits on one connection), and a group is computed in as many parts as
        // there are cores; the parts are added to the index one after the other.
        let analytics = SubscriptionAnalytics(catalog: app.catalog, configuration: app.analytics, environment: environment)
        var index = SnapshotIndex(analytics: analytics, histories: [])
        let chains = try await store.knownChains(appId: app.id)
        let groups = stride(from: 0, to: chains.count, by: Self.rebuildGroup).map { Array(chains[$0..<min($0 + Self.rebuildGroup, chains.count)]) }
        let appId = app.id
        func read(_ position: Int) -> Task<[String: [LedgerEntry]], any Error>? {
            guard position < groups.count else { return nil }
            let group = groups[position]
            return Task { try await store.ledgers(appId: appId, originalTransactionIds: group) }
        }
        var ahead = (0..<Self.readsAhead).compactMap(read)
        defer { for reading in ahead { reading.cancel() } }
        for position in groups.indices {
            guard !ahead.isEmpty else { break }
            let ledgers = try await ahead.removeFirst().value
            if let reading = read(position + Self.readsAhead) { ahead.append(reading) }
            let histories = groups[position].map { ($0, PurchaseHistory(ledger: ledgers[$0] ?? [])) }
            for (chain, runs) in await SnapshotIndex.runs(of: histories, analytics: analytics) { index.replace(chain: chain, with: runs) }
        }
        entries[key] = Entry(index: index, version: version, analytics: app.analytics, catalog: app.catalog)
        rebuilds += 1
        return index
    }

    /// How many chains a rebuild reads at a time.
    static let rebuildGroup = 1_000
    /// How many groups a rebuild has read or is reading ahead of the one it computes.
    static let readsAhead = 2
}
