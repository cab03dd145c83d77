import Synchronization

/// Each chain's ledger as last read, so that a status read, a look or a notification about a
/// chain whose ledger has not changed is answered without a query.
///
/// Only a store that sees every write to its database keeps one: SQLite served by this
/// process (``SQLStore/run()`` turns it on). Every write of ledger facts evicts the chains it
/// touches once it has committed (a revocation, which joins a chain through its transaction
/// id, evicts its whole app); a write by another process (a command run against the file)
/// empties the cache within a second (``SQLStore/run()`` watches SQLite's `data_version`).
///
/// A read stores what it found only if no write was committed since it began: a read that
/// started before a write and ended after it could otherwise put back what the write evicted.
/// Bounded; it starts over when full.
final class ChainLedgerCache: Sendable {
    struct Key: Hashable, Sendable {
        var appId: String
        var chain: String
    }

    private struct State {
        var enabled = false
        /// Counts evictions: a read's result is stored only under the generation it began in.
        var generation: UInt64 = 0
        var ledgers: [Key: [LedgerEntry]] = [:]
    }

    private let state = Mutex(State())
    let capacity: Int

    init(capacity: Int = 50_000) {
        self.capacity = capacity
    }

    /// What a read found cached, and the generation to store the rest under.
    struct Lookup: Sendable {
        var found: [String: [LedgerEntry]]
        var generation: UInt64?
    }

    /// The cached ledgers among `chains` of `appId` (none while the cache is off).
    func lookup(appId: String, chains: some Collection<String>) -> Lookup {
        state.withLock { state in
            guard state.enabled else { return Lookup(found: [:], generation: nil) }
            var found: [String: [LedgerEntry]] = [:]
            for chain in chains {
                if let ledger = state.ledgers[Key(appId: appId, chain: chain)] { found[chain] = ledger }
            }
            return Lookup(found: found, generation: state.generation)
        }
    }

    /// Keeps `ledgers` (a chain absent from it has no entries) for each of `chains`, unless a
    /// write was committed since `generation`.
    func store(appId: String, chains: some Collection<String>, ledgers: [String: [LedgerEntry]], generation: UInt64?) {
        guard let generation else { return }
        state.withLock { state in
            guard state.enabled, state.generation == generation else { return }
            if state.ledgers.count + chains.count > capacity { state.ledgers.removeAll(keepingCapacity: true) }
            for chain in chains { state.ledgers[Key(appId: appId, chain: chain)] = ledgers[chain] ?? [] }
        }
    }

    /// Forgets the chains the committed `entries` of `appId` belong to.
    func evict(appId: String, entries: some Sequence<LedgerEntry>) {
        var chains: Set<String> = []
        var wholeApp = false
        for entry in entries {
            if case .revocation = entry.fact { wholeApp = true }
            if let chain = entry.fact.originalTransactionId { chains.insert(chain) }
        }
        state.withLock { state in
            state.generation &+= 1
            guard !state.ledgers.isEmpty else { return }
            if wholeApp {
                state.ledgers = state.ledgers.filter { $0.key.appId != appId }
            } else {
                for chain in chains { state.ledgers.removeValue(forKey: Key(appId: appId, chain: chain)) }
            }
        }
    }

    /// Forgets everything (another process wrote to the database).
    func clear() {
        state.withLock { state in
            state.generation &+= 1
            state.ledgers.removeAll()
        }
    }

    /// Turns the cache on or off; either way it starts empty.
    func setEnabled(_ enabled: Bool) {
        state.withLock { state in
            state.enabled = enabled
            state.generation &+= 1
            state.ledgers.removeAll()
        }
    }

    var count: Int { state.withLock { $0.ledgers.count } }
}
