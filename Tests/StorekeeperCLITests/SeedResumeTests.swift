import Foundation
import Logging
import SQLKit
import StorekeeperTestSupport
import Testing

@testable import StorekeeperStore

@Suite("bench seed --resume: a stopped seed goes on where it stopped", .heavyLoad, .tags(.slow), .skippedWhenFast)
struct SeedResumeTests {
    /// Three slices of 100 customers, each one write (a transaction of up to 2,000 customers).
    static let arguments = ["bench", "seed", "--subscriptions", "300", "--slice", "100", "--days", "366", "--end", "2026-11-23T00:00:00Z"]

    /// `heldCells`: 0 writes the held rollups, and a checkpoint, after every slice; a million
    /// holds them all to the end, so the stopped seed had written none.
    @Test("a seed that dies after its second write and is resumed leaves what an unbroken seed leaves", arguments: [0, 1_000_000])
    func resumedEqualsUnbroken(heldCells: Int) async throws {
        let unbroken = try makeTemporaryDirectory()
        let stopped = try makeTemporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: unbroken)
            try? FileManager.default.removeItem(at: stopped)
        }
        let held = ["--held-rollup-cells", String(heldCells)]
        let whole = try await StorekeeperProcess.run(Self.arguments + held + ["--data-dir", unbroken.path], timeout: 600)
        #expect(whole.exitCode == 0, "\(whole.standardError)")

        let nothing = try await StorekeeperProcess.run(["bench", "seed", "--resume", "--data-dir", stopped.path])
        #expect(nothing.exitCode != 0)
        #expect(nothing.standardError.contains("nothing to resume"), "\(nothing.standardError)")

        // Slice 1 is written, its rollups held and lost, and the progress file still says one slice.
        let killed = try await StorekeeperProcess.run(
            Self.arguments + held + ["--data-dir", stopped.path, "--exit-after-writes", "2"], timeout: 600)
        #expect(killed.exitCode == 75, "\(killed.standardError)")
        let again = try await StorekeeperProcess.run(Self.arguments + ["--data-dir", stopped.path])
        #expect(again.exitCode != 0, "a stopped seed is not seeded over")
        #expect(again.standardError.contains("--resume"), "\(again.standardError)")

        let resumed = try await StorekeeperProcess.run(["bench", "seed", "--resume", "--data-dir", stopped.path], timeout: 600)
        #expect(resumed.exitCode == 0, "\(resumed.standardError)")
        #expect(resumed.standardError.contains("documents written since held again"), "\(resumed.standardError)")
        let (wholeReport, resumedReport) = (try whole.json(), try resumed.json())
        #expect(resumedReport["resumedAfterSlices"] as? Int == 1)
        #expect(wholeReport["resumedAfterSlices"] == nil)
        for key in ["chains", "ledgerRows", "figureUpdates", "figureRows", "enrolments", "figureSettings", "slices"] {
            #expect("\(wholeReport[key] ?? "-")" == "\(resumedReport[key] ?? "-")", "\(key)")
        }
        #expect(!FileManager.default.fileExists(atPath: stopped.appendingPathComponent("seed-progress.json").path))
        #expect(FileManager.default.fileExists(atPath: unbroken.appendingPathComponent("seed-progress.json").path) == false)

        let (expected, found) = (try await Self.tables(unbroken), try await Self.tables(stopped))
        #expect(expected.keys.sorted() == found.keys.sorted())
        for (table, rows) in expected.sorted(by: { $0.key < $1.key }) {
            #expect(rows.count > 0, "\(table)")
            let (missing, extra) = (Set(rows).subtracting(found[table] ?? []), Set(found[table] ?? []).subtracting(rows))
            #expect(
                found[table] == rows,
                "\(table): \(rows.count) rows against \(found[table]?.count ?? 0); missing \(missing.sorted().prefix(3).map { $0.prefix(300) }), extra \(extra.sorted().prefix(3).map { $0.prefix(300) })"
            )
        }

        let finished = try await StorekeeperProcess.run(["bench", "seed", "--resume", "--data-dir", stopped.path])
        #expect(finished.exitCode != 0, "a finished seed has nothing to resume")
    }

    /// The rows a seed leaves that its figures and reads depend on, as sorted lines per table.
    static func tables(_ directory: URL) async throws -> [String: [String]] {
        let location = try DatabaseLocation.resolve(databaseURL: nil, dataDirectory: directory.path)
        return try await SQLStore.withStore(location, logger: Logger(label: "test"), migrate: false) { store in
            try await store.backend.read { db in
                var tables: [String: [String]] = [:]
                let queries: [(String, String)] = [
                    ("figure_days", "SELECT grp, series, day, currency, denominator, value FROM figure_days WHERE value <> 0"),
                    ("figure_months", "SELECT grp, series, month, currency, denominator, value FROM figure_months WHERE value <> 0"),
                    ("figure_groups", "SELECT grp, chains FROM figure_groups WHERE chains <> 0"),
                    ("figure_chains", "SELECT environment, chain, facts, rows, customer FROM figure_chains"),
                    ("figure_state", "SELECT environment, settings, resume_after, complete FROM figure_state"),
                    ("figure_rows", "SELECT 'runs', COUNT(*) FROM figure_runs UNION ALL SELECT 'items', COUNT(*) FROM figure_items"),
                    ("ledger", "SELECT original_transaction_id, COUNT(*) FROM ledger GROUP BY original_transaction_id"),
                    (
                        "experiment_outcome_sums",
                        "SELECT variant, money, customers, trials, conversions, paying, refunded FROM experiment_outcome_sums"
                    ),
                    ("experiment_outcomes", "SELECT customer_id, variant, trial, converted, paying, refunded, money FROM experiment_outcomes"),
                    ("experiment_enrolments", "SELECT customer_id, variant FROM experiment_enrolments"),
                ]
                for (table, query) in queries {
                    let rows = try await db.raw("\(unsafeRaw: query)").all()
                    tables[table] = try rows.map { row in
                        try row.allColumns.map { column in
                            do {
                                let text = try row.decode(column: column, as: String?.self) ?? "null"
                                // A document's lines in any order (some come from a dictionary).
                                return column == "rows" ? text.split(separator: "\n").sorted().joined(separator: "\n") : text
                            } catch {
                                return String(try row.decode(column: column, as: Int64.self))
                            }
                        }.joined(separator: "|")
                    }.sorted()
                }
                return tables
            }
        }
    }
}
