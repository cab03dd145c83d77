import Foundation
import Logging
import SQLKit
import Synchronization

/// How far a streaming standby is behind its primary, watched a few times a second.
///
/// Each watch takes the primary's WAL position (`pg_current_wal_lsn()`) and then the standby's
/// replayed position (`pg_last_wal_replay_lsn()`). The lag in seconds is how long ago the primary
/// was at a position the standby has now replayed: the standby holds every commit the primary
/// had made by then. It is exact to one interval, and it stays 0 on an idle primary (where the
/// replay timestamp PostgreSQL offers grows without anything being behind).
public final class ReplicationWatch: Sendable {
    /// What the latest watch saw.
    public struct Snapshot: Sendable, Equatable {
        /// Seconds since the primary was at a position the standby has replayed.
        public var lagSeconds: Double
        /// WAL bytes the primary has that the standby has not replayed.
        public var lagBytes: UInt64
        /// Whether the standby answered and is in recovery (a standby, not a promoted primary).
        public var streaming: Bool
        /// Whether reads that may lag go to the standby now.
        public var serving: Bool
        /// When this was seen.
        public var at: Date
    }

    /// The most a standby may lag and still serve reads.
    public let maximumLag: Duration
    /// How often the positions are taken.
    let interval: Duration
    private let state = Mutex(State())

    private struct State {
        /// Recent (when, primary position, writes counted before it) samples, oldest first.
        var primaryPositions: [(at: ContinuousClock.Instant, lsn: UInt64, writes: UInt64)] = []
        /// The writes through the standby's store (``StandbyBackend``) the standby has replayed.
        var replayedWrites: UInt64 = 0
        var snapshot: Snapshot?
        var seenAt: ContinuousClock.Instant?
        var routed: (standby: Int, primary: Int, failed: Int) = (0, 0, 0)
    }

    init(maximumLag: Duration, interval: Duration) {
        self.maximumLag = maximumLag
        self.interval = interval
    }

    /// What the latest watch saw; nil before the first.
    public var snapshot: Snapshot? { state.withLock { $0.snapshot } }

    /// How many reads went to the standby, how many to the primary instead, and how many of
    /// those the standby had failed first.
    public var routedReads: (standby: Int, primary: Int, failed: Int) { state.withLock { $0.routed } }

    /// Whether a read that may lag goes to the standby now: it answered within three intervals,
    /// is still a standby, is at most ``maximumLag`` behind, and has replayed the first `writes`
    /// writes made through the standby's own store (read-your-writes for that store).
    func servesReads(after writes: UInt64 = 0) -> Bool {
        let now = ContinuousClock.now
        return state.withLock { state in
            guard let snapshot = state.snapshot, let seenAt = state.seenAt else { return false }
            return snapshot.serving && now - seenAt <= interval * 3 && state.replayedWrites >= writes
        }
    }

    func counted(standby: Bool, failed: Bool = false) {
        state.withLock { state in
            if standby { state.routed.standby += 1 } else { state.routed.primary += 1 }
            if failed { state.routed.failed += 1 }
        }
    }

    /// Records a watch: the primary's position (taken first, after counting `writes` committed
    /// writes), then the standby's replayed one (nil when the standby did not answer or is not in
    /// recovery).
    func record(
        primary: UInt64, primaryAt: ContinuousClock.Instant, writes: UInt64 = 0, replayed: UInt64?, at now: ContinuousClock.Instant, date: Date
    ) {
        state.withLock { state in
            state.primaryPositions.append((primaryAt, primary, writes))
            // Two minutes of positions tell any lag worth serving from.
            let horizon = now - .seconds(120)
            if let keep = state.primaryPositions.firstIndex(where: { $0.at >= horizon }), keep > 0 {
                state.primaryPositions.removeFirst(keep)
            }
            guard let replayed else {
                state.snapshot = Snapshot(lagSeconds: .infinity, lagBytes: 0, streaming: false, serving: false, at: date)
                state.seenAt = now
                return
            }
            // The latest moment the primary was at a position the standby has replayed (none
            // within reach: at least as long ago as the oldest sample).
            let caughtUp = state.primaryPositions.last { $0.lsn <= replayed }
            let caughtUpTo = caughtUp?.at ?? state.primaryPositions.first?.at ?? primaryAt
            state.replayedWrites = max(state.replayedWrites, caughtUp?.writes ?? 0)
            let lag = replayed >= primary ? 0 : Self.seconds(now - caughtUpTo)
            state.snapshot = Snapshot(
                lagSeconds: lag, lagBytes: primary > replayed ? primary - replayed : 0, streaming: true,
                serving: lag <= Self.seconds(maximumLag), at: date)
            state.seenAt = now
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// A `pg_lsn`'s text (`16/B374D848`) as a number.
    static func position(_ text: String) -> UInt64? {
        let halves = text.split(separator: "/")
        guard halves.count == 2, let high = UInt64(halves[0], radix: 16), let low = UInt64(halves[1], radix: 16), low <= UInt32.max else {
            return nil
        }
        return high << 32 | low
    }
}

/// Reads that may lag go to a streaming standby while it keeps up (``ReplicationWatch``), and to
/// the primary otherwise or when the standby fails them; writes always go to the primary.
///
/// A store over this backend is what the server hands the routes whose answers may be a moment
/// old: the dashboard's lists and figures, analytics, listings. A customer's state is read
/// through the primary's store, so it includes the purchase the customer just made whichever
/// server took it.
struct StandbyBackend: SQLBackend {
    let primary: PostgresBackend
    let standby: PostgresBackend
    let watch: ReplicationWatch
    /// The writes whose results its reads must see: those through this backend, or every write
    /// through the primary's backend (``SQLStore/standbyReads(url:maximumLag:followingWrites:logger:)``).
    /// Reads go to the primary until the standby has replayed them.
    let writes: WriteCount
    let logger: Logger
    var dialect: SQLStoreDialect { .postgresql }
    var writeFailure: String? { nil }

    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await routed(body) { try await $0.read($1) }
    }

    func scan<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await routed(body) { try await $0.scan($1) }
    }

    private func routed<T: Sendable>(
        _ body: @escaping @Sendable (any SQLDatabase) async throws -> T,
        _ run: (PostgresBackend, @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T
    ) async throws -> T {
        var failed = false
        if watch.servesReads(after: writes.value) {
            do {
                let value = try await run(standby, body)
                watch.counted(standby: true)
                return value
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // Unreachable, or cancelling a query for replay (a conflict): the primary answers.
                logger.notice("a read the standby could not answer went to the primary", metadata: ["error.type": "\(type(of: error))"])
                failed = true
            }
        }
        watch.counted(standby: false, failed: failed)
        return try await run(primary, body)
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await counted { try await primary.write(body) }
    }

    func transaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await counted { try await primary.transaction(body) }
    }

    func unflushedTransaction<T: Sendable>(_ body: @escaping @Sendable (any SQLDatabase) async throws -> T) async throws -> T {
        try await counted { try await primary.unflushedTransaction(body) }
    }

    /// A write, counted in ``writes`` unless the primary's backend counts it there already.
    private func counted<T>(_ write: () async throws -> T) async rethrows -> T {
        writes === primary.writes ? try await write() : try await writes.counting(write)
    }

    func externalWriteMark() async throws -> Int? { nil }

    /// Runs the standby's pool and the watch (the primary's pool is its own store's).
    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask { await standby.servers.run() }
            group.addTask { await watchReplication() }
        }
    }

    func watchReplication() async {
        while !Task.isCancelled {
            await watchOnce()
            try? await Task.sleep(for: watch.interval)
        }
    }

    /// One watch: the primary's position, then the standby's.
    func watchOnce() async {
        let clock = ContinuousClock()
        // Counted first: every write counted has committed before the position is taken.
        let written = writes.value
        guard
            let primaryText = try? await primary.read({ db in
                try await db.raw("SELECT pg_current_wal_lsn()::text AS lsn").first()?.decode(column: "lsn", as: String.self)
            }), let primaryPosition = ReplicationWatch.position(primaryText)
        else {
            // A primary that does not answer (or is itself a standby) gives nothing to compare.
            return
        }
        let primaryAt = clock.now
        let replayed: String? = try? await standby.read { db -> String? in
            let row = try await db.raw(
                "SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS replayed"
            ).first()
            guard try row?.decode(column: "recovery", as: Bool.self) == true else { return nil }
            return try row?.decode(column: "replayed", as: String?.self)
        }
        watch.record(
            primary: primaryPosition, primaryAt: primaryAt, writes: written, replayed: replayed.flatMap(ReplicationWatch.position), at: clock.now,
            date: Date())
    }

    func close() async throws {}
}

/// How many writes have committed through a ``StandbyBackend`` (an attempt that failed may
/// have committed too: it counts).
final class WriteCount: Sendable {
    private let count = Atomic<UInt64>(0)
    var value: UInt64 { count.load(ordering: .acquiring) }

    func counting<T>(_ write: () async throws -> T) async rethrows -> T {
        defer { count.add(1, ordering: .releasing) }
        return try await write()
    }
}

extension SQLStore {
    /// A store over the same database whose reads go to the streaming standby at
    /// `standbyURL` while it is at most `maximumLag` behind (``StandbyBackend``); writes go to
    /// this store's primary (a `standbyURL` naming no database means the primary's). Its reads
    /// see its own writes (they go to the primary until the
    /// standby has replayed them); with `followingWrites`, every write through this store's
    /// backend too, so that nothing this process wrote is read older (under a steady stream of
    /// writes most reads then stay on the primary). Run it (``run()``) beside this store.
    /// PostgreSQL only.
    public func standbyReads(
        url standbyURL: String, maximumLag: Duration, followingWrites: Bool = false, logger: Logger
    ) throws -> (SQLStore, ReplicationWatch) {
        guard let primary = backend as? PostgresBackend else {
            throw StoreError(code: .invalidLocation, message: "a read database (standby) is for PostgreSQL only")
        }
        // A standby URL that names no database means the primary's.
        var named = standbyURL
        if try PostgresSettings(url: standbyURL).database == nil, let database = primary.database,
            var components = URLComponents(string: standbyURL)
        {
            components.path = "/" + database
            named = components.string ?? standbyURL
        }
        let standby = try PostgresBackend(url: named, logger: logger)
        let watch = ReplicationWatch(maximumLag: maximumLag, interval: .milliseconds(250))
        return (
            SQLStore(
                backend: StandbyBackend(
                    primary: primary, standby: standby, watch: watch, writes: followingWrites ? primary.writes : WriteCount(), logger: logger),
                clock: clock), watch
        )
    }
}
