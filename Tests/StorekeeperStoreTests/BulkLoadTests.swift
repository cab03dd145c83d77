import Foundation
import SQLKit
import SubscriptionEngine
import Testing

@testable import StorekeeperStore

/// The bulk path of the figure rows (``BulkInsert``) and of a seed (the figure read indexes
/// dropped while it writes, ``SQLStore/deferringFigureReadIndexes(_:)``), on SQLite and
/// PostgreSQL.
@Suite("Bulk loads: rows bound in multi-row statements, read indexes built at the end")
struct BulkLoadTests {
    static var backends: [TestBackend] { TestBackend.available.filter { $0 != .memory } }

    struct Failure: Error {}

    /// Texts COPY's text format must escape (a tab, a line feed, a carriage return, a backslash,
    /// its end-of-data and null markers), quotes, and bytes beyond ASCII.
    static let awkwardTexts = ["", "product=p'1", "tab\there", "line\nfeed", "carriage\rreturn", "back\\slash", "\\.", "\\N", "ö→🎉"]

    /// Churn rows, seven a statement (COPY on PostgreSQL: the statement size does not matter there).
    static let churnRows = BulkInsert(
        table: "figure_churn", columns: ["app_id", "environment", "grp", "chain", "ended_ms", "from_ms", "until_ms"], rowsPerStatement: 7)

    @Test("every row and value reads back as written, across statements and with nulls", arguments: backends)
    func rowsReadBack(_ backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let insert = Self.churnRows
            // 23 rows: three full statements and a shorter one; odd rows without an end.
            var values: [BulkValue] = []
            for row in 0..<23 {
                values += [
                    .text("a"), .text("Production"), .text(Self.awkwardTexts[row % Self.awkwardTexts.count] + "\(row)"), .text("chain-\(row)"),
                    .integer(1_700_000_000_000 + Int64(row)), .integer(-Int64(row)), BulkValue(row % 2 == 1 ? nil : Int64(row) * 1_000),
                ]
            }
            try await store.backend.transaction { [values] db in try await insert.run(values, db) }
            let read = try await store.backend.read { db in
                try await db.raw("SELECT grp, chain, ended_ms, from_ms, until_ms FROM figure_churn ORDER BY ended_ms").all().map {
                    [
                        BulkValue.text(try $0.string("grp")), .text(try $0.string("chain")), .integer(try $0.int64("ended_ms")),
                        .integer(try $0.int64("from_ms")), BulkValue(try $0.decode(column: "until_ms", as: Int64?.self)),
                    ]
                }
            }
            let expected = stride(from: 0, to: values.count, by: 7).map { Array(values[($0 + 2)..<($0 + 7)]) }
            #expect(read == expected)
        }
    }

    @Test("a row the table refuses fails the whole load, leaves nothing, and the store goes on", arguments: backends)
    func refusedRowRollsBack(_ backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let insert = Self.churnRows
            func rows(_ count: Int, missingChainAt refused: Int?) -> [BulkValue] {
                (0..<count).flatMap { row -> [BulkValue] in
                    [
                        .text("a"), .text("Production"), .text(""), row == refused ? .null : .text("chain-\(row)"),
                        .integer(Int64(row)), .integer(0), .null,
                    ]
                }
            }
            let refused = rows(5_000, missingChainAt: 4_321)
            await #expect(throws: (any Error).self) {
                try await store.backend.transaction { db in try await insert.run(refused, db) }
            }
            let count = { try await store.backend.read { db in try await db.raw("SELECT COUNT(*) AS n FROM figure_churn").first()?.int64("n") } }
            #expect(try await count() == 0)
            let accepted = rows(3, missingChainAt: nil)
            try await store.backend.transaction { db in try await insert.run(accepted, db) }
            #expect(try await count() == 3)
        }
    }

    @Test("the read indexes are gone while a load runs and back after it, even when it fails", arguments: backends)
    func readIndexesDeferred(_ backend: TestBackend) async throws {
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let all = Set(SchemaMigrations.figureReadIndexes.map(\.name))
            #expect(try await Self.readIndexes(store) == all)
            let (during, _) = try await store.deferringFigureReadIndexes { try await Self.readIndexes(store) }
            #expect(during.isEmpty)
            #expect(try await Self.readIndexes(store) == all)
            // A failing load still leaves the indexes built, and its error is the one thrown.
            await #expect(throws: Failure.self) {
                _ = try await store.deferringFigureReadIndexes { throw Failure() }
            }
            #expect(try await Self.readIndexes(store) == all)
            // A load killed midway: the next migration builds what is missing and nothing else.
            try await store.backend.transaction { db in try await db.raw("DROP INDEX figure_items_at").run() }
            #expect(try await Self.readIndexes(store) == all.subtracting(["figure_items_at"]))
            #expect(try await store.migrate() == [])
            #expect(try await Self.readIndexes(store) == all)
        }
    }

    @Test("rollups held back by a load, flushed midway and at its end, are those each transaction writes", arguments: backends)
    func rollupsDeferred(_ backend: TestBackend) async throws {
        let written = try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            try await Self.writeFigures(store, from: 0, to: Self.facts.count)
            return try await Self.rollups(store)
        }
        #expect(written.count > 100)
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            let half = Self.facts.count / 2
            try await store.deferringRollups {
                try await Self.writeFigures(store, from: 0, to: half)
                #expect(try await Self.rollups(store).isEmpty, "held back, not written")
                try await store.flushDeferredRollups(over: 1_000_000)
                #expect(try await Self.rollups(store).isEmpty, "fewer cells held than the bound")
                try await store.flushDeferredRollups(over: 0)
                #expect(try await !Self.rollups(store).isEmpty)
                try await Self.writeFigures(store, from: half, to: Self.facts.count)
            }
            #expect(try await Self.rollups(store) == written, "\(backend)")
            // Outside a load each transaction writes its own again.
            try await store.resetFigures(appId: "app", environment: "Production", settings: "s")
            try await Self.writeFigures(store, from: 0, to: Self.facts.count)
            #expect(try await Self.rollups(store) == written)
        }
        // A load that fails still writes what its committed transactions held.
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            await #expect(throws: Failure.self) {
                try await store.deferringRollups {
                    try await Self.writeFigures(store, from: 0, to: Self.facts.count)
                    throw Failure()
                }
            }
            #expect(try await Self.rollups(store) == written)
        }
    }

    @Test("a load that dies with rollups held resumes by holding its documents' changes again", arguments: backends)
    func rollupsHeldAgain(_ backend: TestBackend) async throws {
        let written = try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            try await Self.writeFigures(store, from: 0, to: Self.facts.count)
            return try await Self.rollups(store)
        }
        try await withTestStore(backend) { storage in
            let store = try #require(storage as? SQLStore)
            try await store.resetFigures(appId: "app", environment: "Production", settings: SQLStore.bulkLoadSettings("s"))
            let half = Self.facts.count / 2
            let checkpoint = BulkLoadCheckpoint(appId: "app", marker: "half")
            try await store.deferringRollups {
                try await Self.writeFigures(store, from: 0, to: half)
                #expect(try await store.flushDeferredRollups(over: 0, checkpoint: checkpoint))
                #expect(try await !Self.rollups(store).isEmpty)
                try await Self.writeFigures(store, from: half, to: Self.facts.count)
                // The process dies: what it held since the checkpoint is lost.
                _ = store.rollupDeferral.take(ending: false)
            }
            #expect(try await store.figureState(appId: "app", environment: "Production")?.resumeAfter == "half")
            #expect(try await Self.rollups(store) != written)

            // Written again from nothing, as a resumed load does for documents written since its
            // last checkpoint (here every chain's, since the chains' facts came in any order).
            try await store.resetFigures(appId: "app", environment: "Production", settings: SQLStore.bulkLoadSettings("s"))
            try await store.deferringRollups {
                try await Self.writeFigures(store, from: 0, to: half)
                _ = store.rollupDeferral.take(ending: false)
            }
            let documents = try await store.deferringRollups {
                // Chain ids are digits; the customers' cohort documents ("cohort:…") sort after ":".
                let documents = try await store.holdRollups(ofChainsFrom: "", to: ":", appId: "app", environment: "Production")
                try await Self.writeFigures(store, from: half, to: Self.facts.count)
                return documents
            }
            #expect(documents > 0, "the documents half the facts made, and their customers'")
            #expect(try await Self.rollups(store) == written, "\(backend)")
            try await store.completeBulkLoad(appId: "app", environment: "Production", settings: "s")
            let state = try await store.figureState(appId: "app", environment: "Production")
            #expect(state?.settings == "s" && state?.complete == true && state?.resumeAfter == nil)
        }
        await #expect(throws: StoreError.self, "only inside a load") {
            try await withTestStore(backend) { storage in
                _ = try await #require(storage as? SQLStore).holdRollups(ofChainsFrom: "", to: ":", appId: "app", environment: "Production")
            }
        }
    }

    /// Random chains' facts in a random order.
    static let facts = FigureStoreTests.shuffled(FigureStoreTests.facts(seed: 31, chains: 16), seed: 7)

    /// Writes facts `from..<to` of ``facts`` one transaction each, with their chains' figures
    /// computed from every fact of the chain written so far.
    static func writeFigures(_ store: SQLStore, from: Int, to: Int) async throws {
        var ledgers: [String: [LedgerEntry]] = [:]
        for (step, fact) in facts.enumerated() where step < to {
            let at = FigureStoreTests.t0 + Double(step)
            let chain = fact.originalTransactionId ?? "-"
            let entry = LedgerEntry(
                appId: "app", fact: fact, customerId: FigureStoreTests.customer(of: chain), source: .notificationV2, recordedAt: at)
            ledgers[chain, default: []].append(entry)
            guard step >= from else { continue }
            var changeset = Changeset(appId: "app", at: at, entries: [entry])
            changeset.figures = [FigureStoreTests.update(ledgers[chain]!, chain: chain, facts: ledgers[chain]!.count, at: at)]
            try await store.apply(changeset)
        }
    }

    /// Every non-zero day and month cell and group count.
    static func rollups(_ store: SQLStore) async throws -> [String: Int64] {
        try await store.backend.read { db in
            var cells: [String: Int64] = [:]
            for (table, column) in [("figure_days", "day"), ("figure_months", "month")] {
                for row in try await db.raw(
                    "SELECT grp, series, \(unsafeRaw: column) AS day, currency, denominator, value FROM \(unsafeRaw: table) WHERE value <> 0"
                ).all() {
                    let key = try [table, row.string("grp"), row.string("series"), String(row.int("day")), row.string("currency")]
                    cells[key.joined(separator: "|") + "|\(try row.int64("denominator"))"] = try row.int64("value")
                }
            }
            for row in try await db.raw("SELECT grp, chains FROM figure_groups WHERE chains <> 0").all() {
                cells["groups|" + (try row.string("grp"))] = Int64(try row.int("chains"))
            }
            return cells
        }
    }

    /// The figure read indexes the database has.
    static func readIndexes(_ store: SQLStore) async throws -> Set<String> {
        let query: SQLQueryString =
            switch store.backend.dialect {
            case .sqlite: "SELECT name FROM sqlite_master WHERE type = 'index'"
            case .postgresql: "SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema()"
            }
        let names = try await store.backend.read { db in try await db.raw(query).all().map { try $0.string("name") } }
        return Set(names).intersection(SchemaMigrations.figureReadIndexes.map(\.name))
    }
}
