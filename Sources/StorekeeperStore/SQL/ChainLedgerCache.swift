import Synchronization

/// Each chain's ledger as last read, so that a status read, a look or a notification about a
/// chain whose ledger has not changed is answered without a query.
///
/// Only a store that sees every write to its database keeps one: SQLite served by this
/// process (``SQLStore/run()`` turns it on). A write of ledger facts marks the chains it
/// touches as being written (a revocation, which joins a chain through its transaction id,
/// marks its whole app) from before it begins until after it has committed or failed: while
/// marked, a chain is never answered from the cache nor stored in it (a read between the commit
/// and the end of the write would otherwise be answered with the ledger from before it), and
/// it is evicted at both ends. A write by another process (a command run against the file)
/// empties the cache within a second (``SQLStore/run()`` watches SQLite's `data_version`).
///
/// A read stores what it found only if no write began or ended since it began: a read that
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
        /// The chains being written, and how many writes each (``Writing``).
        var writing: [Key: Int] = [:]
        /// The apps whose every chain is being written (revocations), and how many writes each.
        var appsWriting: [String: Int] = [:]

        func isWritten(_ key: Key) -> Bool { writing[key] != nil || appsWriting[key.appId] != nil }
    }

    /// The chains a write of ledger facts touches: marked by ``beginWrite(appId:entries:)``
    /// until ``endWrite(_:)``.
    struct Writing: Sendable {
        var appId: String
        var chains: Set<String>
        var wholeApp: Bool
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
                let key = Key(appId: appId, chain: chain)
                if !state.isWritten(key), let ledger = state.ledgers[key] { found[chain] = ledger }
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
            for chain in chains {
                let key = Key(appId: appId, chain: chain)
                if !state.isWritten(key) { state.ledgers[key] = ledgers[chain] ?? [] }
            }
        }
    }

    /// Marks the chains `entries` of `appId` belong to as being written, and forgets them;
    /// call before the write begins and ``endWrite(_:)`` once it has committed or failed.
    func beginWrite(appId: String, entries: some Sequence<LedgerEntry>) -> Writing {
        var writing = Writing(appId: appId, chains: [], wholeApp: false)
        for entry in entries {
            if case .revocation = entry.fact { writing.wholeApp = true }
            if let chain = entry.fact.originalTransactionId { writing.chains.insert(chain) }
        }
        state.withLock { state in
            if writing.wholeApp { state.appsWriting[appId, default: 0] += 1 }
            for chain in writing.chains { state.writing[Key(appId: appId, chain: chain), default: 0] += 1 }
            Self.evict(writing, &state)
        }
        return writing
    }

    /// Ends a write ``beginWrite(appId:entries:)`` marked: forgets its chains again (a read may
    /// have stored them before the write began) and unmarks them.
    func endWrite(_ writing: Writing) {
        state.withLock { state in
            Self.evict(writing, &state)
            if writing.wholeApp { Self.release(&state.appsWriting, writing.appId) }
            for chain in writing.chains { Self.release(&state.writing, Key(appId: writing.appId, chain: chain)) }
        }
    }

    private static func evict(_ writing: Writing, _ state: inout State) {
        state.generation &+= 1
        guard !state.ledgers.isEmpty else { return }
        if writing.wholeApp {
            state.ledgers = state.ledgers.filter { $0.key.appId != writing.appId }
        } else {
            for chain in writing.chains { state.ledgers.removeValue(forKey: Key(appId: writing.appId, chain: chain)) }
        }
    }

    private static func release<K: Hashable>(_ counts: inout [K: Int], _ key: K) {
        let left = (counts[key] ?? 1) - 1
        counts[key] = left > 0 ? left : nil
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
