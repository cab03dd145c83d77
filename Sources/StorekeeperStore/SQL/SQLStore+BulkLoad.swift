import Foundation
import SQLKit
import SubscriptionAnalytics

/// Where a bulk load of figures (`bench seed`) has got to: `marker` is recorded in the figure
/// state of every incomplete environment of `appId` in the transaction that writes the rollup
/// changes held back until then (``SQLStore/flushDeferredRollups(over:checkpoint:)``), and read
/// back as its ``FigureState/resumeAfter`` by a load that resumes.
public struct BulkLoadCheckpoint: Sendable, Hashable {
    public var appId: String
    public var marker: String

    public init(appId: String, marker: String) {
        self.appId = appId
        self.marker = marker
    }
}

extension SQLStore {
    /// Gives the writing connection a page cache of `mebibytes` (SQLite; nothing on PostgreSQL,
    /// whose cache is the server's), until the connection is opened afresh. For a bulk load
    /// (`bench seed`), whose inserts into indexes of millions of rows otherwise read most of
    /// their pages back from the operating system.
    public func setWriterCache(mebibytes: Int) async throws {
        guard backend.dialect == .sqlite else { return }
        try await backend.write { db in try await db.raw("PRAGMA cache_size=\(unsafeRaw: String(-mebibytes * 1024))").run() }
    }

    /// The settings a bulk load records an environment's figures with while it writes them
    /// (``resetFigures(appId:environment:settings:)``), until ``completeBulkLoad(appId:environment:settings:)``.
    /// They are not any app's settings, so a server started on a load that did not finish
    /// (whose held rollup changes died with it) finds its figures built with other settings and
    /// builds them afresh from the ledger.
    public static func bulkLoadSettings(_ settings: String) -> String { "bulk-load:" + settings }

    /// Records the figures of `appId` in `environment`, written by a bulk load with `settings`, as complete.
    public func completeBulkLoad(appId: String, environment: String, settings: String) async throws {
        try await backend.transaction { db in
            try await db.raw(
                """
                UPDATE figure_state SET settings = \(bind: settings), resume_after = NULL, complete = 1
                WHERE app_id = \(bind: appId) AND environment = \(bind: environment) AND settings = \(bind: Self.bulkLoadSettings(settings))
                """
            ).run()
        }
    }

    /// Runs `body`, a bulk load of figures (`bench seed`), without the indexes only the figure
    /// reads use (``SchemaMigrations/figureReadIndexes``), then builds them, whether or not
    /// `body` succeeded. Reads are slow meanwhile; the writes are not (they find rows by chain).
    /// A load that is killed leaves them to the next migration, which builds any missing.
    /// Returns `body`'s result and how long the indexes took to build.
    public func deferringFigureReadIndexes<T>(_ body: () async throws -> T) async throws -> (result: T, indexBuild: Duration) {
        let dialect = backend.dialect
        try await backend.transaction { db in
            for index in SchemaMigrations.figureReadIndexes {
                try await db.raw("DROP INDEX IF EXISTS \(unsafeRaw: index.name)").run()
            }
        }
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        let began = ContinuousClock.now
        _ = try await backend.transaction { db in try await SchemaMigrations.buildMissingFigureReadIndexes(db, dialect: dialect) }
        return (try outcome.get(), ContinuousClock.now - began)
    }

    /// Runs `body`, a bulk load of figures (`bench seed`), holding back the rollup changes of
    /// its transactions (``RollupDeferral``): they are summed in memory and written, each cell
    /// once, by ``flushDeferredRollups(over:checkpoint:)`` and at the end, whether or not `body`
    /// succeeded. Meanwhile the rollups lag the documents, so the load keeps its figures marked
    /// as being built with ``bulkLoadSettings(_:)`` until it is done. A load that is killed loses
    /// what it held: it resumes from its last checkpoint, holding again the changes of the
    /// documents written since (``holdRollups(ofChainsFrom:to:appId:environment:)``), or a
    /// server builds the figures afresh.
    public func deferringRollups<T>(_ body: () async throws -> T) async throws -> T {
        guard rollupDeferral.begin() else { return try await body() }
        let outcome: Result<T, any Error>
        do { outcome = .success(try await body()) } catch { outcome = .failure(error) }
        let held = rollupDeferral.take(ending: true)
        do {
            try await writeRollups(held, checkpoint: nil)
        } catch {
            _ = try outcome.get()
            throw error
        }
        return try outcome.get()
    }

    /// Writes the rollup changes held back (``deferringRollups(_:)``) if they are more than
    /// `cells` cells: a bulk load calls it between its transactions to bound its memory. The
    /// same transaction records `checkpoint`, when given: the changes of every transaction
    /// before it are then written. Returns whether it wrote.
    @discardableResult
    public func flushDeferredRollups(over cells: Int, checkpoint: BulkLoadCheckpoint? = nil) async throws -> Bool {
        guard rollupDeferral.cellCount > cells else { return false }
        try await writeRollups(rollupDeferral.take(ending: false), checkpoint: checkpoint)
        return true
    }

    /// Holds back again (inside ``deferringRollups(_:)``) the rollup changes of the documents
    /// of the chains from `lower` (included) to `upper` (excluded) in `environment`, and of their
    /// customers' cohort rows, as their transactions held them: for a bulk load that resumes
    /// after being killed, whose held changes died with it. The caller knows those documents'
    /// changes were held and lost (written since its last checkpoint, their customers' chains
    /// all among them). Returns how many documents it read.
    public func holdRollups(ofChainsFrom lower: String, to upper: String, appId: String, environment: String) async throws -> Int {
        guard rollupDeferral.isHolding else {
            throw StoreError(code: .unavailable, message: "rollup changes are held only inside deferringRollups")
        }
        var read = 0
        var owners = Set<String>()
        var after: String?
        repeat {
            let page = try await backend.read { [after] db in
                var query: SQLQueryString = """
                    SELECT chain, rows, customer, time_zone FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment)
                    AND chain < \(bind: upper) AND
                    """
                query += after.map { " chain > \(bind: $0)" } ?? " chain >= \(bind: lower)"
                return try await Self.heldChanges(of: db.raw(query + " ORDER BY chain LIMIT 1000").all())
            }
            read += page.documents
            owners.formUnion(page.owners)
            after = page.last
            _ = rollupDeferral.hold(page.changes, appId: appId, environment: environment)
        } while after != nil
        for part in owners.sorted().map(FigureUpdate.cohortKey).chunked(by: 500) {
            let page = try await backend.read { db in
                var query: SQLQueryString = """
                    SELECT chain, rows, customer, time_zone FROM figure_chains WHERE app_id = \(bind: appId) AND environment = \(bind: environment)
                    AND chain IN (
                    """
                for (position, key) in part.enumerated() { query += (position == 0 ? "" : ", ") + "\(bind: key)" }
                return try await Self.heldChanges(of: db.raw(query + ")").all())
            }
            read += page.documents
            _ = rollupDeferral.hold(page.changes, appId: appId, environment: environment)
        }
        return read
    }

    /// The rollup changes documents `rows` made when they were written over nothing, their
    /// owners, and the last document's key (none when there are no rows).
    private static func heldChanges(of rows: [any SQLRow]) throws -> (changes: RollupChanges, owners: Set<String>, last: String?, documents: Int) {
        var changes = RollupChanges()
        var owners = Set<String>()
        for row in rows {
            let figures = try document(row)
            let calendar = FigureCalendar(timeZone: TimeZone(identifier: try row.string("time_zone")) ?? .gmt)
            changes.cells.merge(figures.days(in: calendar), uniquingKeysWith: +)
            for group in figures.groups { changes.groups[group, default: 0] += 1 }
            if let owner = try row.decode(column: "customer", as: String?.self) { owners.insert(owner) }
        }
        return (changes, owners, try rows.last?.string("chain"), rows.count)
    }

    /// Writes held rollup changes and `checkpoint` in one transaction (in the cells' order on
    /// PostgreSQL, as every writer takes them).
    private func writeRollups(_ held: [(key: RollupDeferral.Key, changes: RollupChanges)], checkpoint: BulkLoadCheckpoint?) async throws {
        guard !held.isEmpty || checkpoint != nil else { return }
        let ordered = backend.dialect == .postgresql
        try await backend.transaction { db in
            for (key, changes) in held {
                try await changes.write(appId: key.appId, environment: key.environment, ordered: ordered, db)
            }
            if let checkpoint {
                try await db.raw(
                    "UPDATE figure_state SET resume_after = \(bind: checkpoint.marker) WHERE app_id = \(bind: checkpoint.appId) AND complete = 0"
                ).run()
            }
        }
    }
}
